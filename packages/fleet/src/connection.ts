import type { ConnectionOptions } from "bullmq";

/** Where a fleet's queue lives. */
export interface FleetConnection {
  /** `redis://[user:password@]host:port[/db]`; REDIS_URL or redis://127.0.0.1:6379 by default. */
  readonly redis?: string;
  /** The queue's name ("attractor" by default). */
  readonly queue?: string;
}

export const DEFAULT_QUEUE = "attractor";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** The Redis URL in force: given, else REDIS_URL, else the local default. */
export function redisUrl(
  connection: FleetConnection,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return connection.redis ?? env.REDIS_URL ?? DEFAULT_REDIS_URL;
}

/**
 * BullMQ's connection options for a URL. Commands wait for a lost connection to come back
 * (maxRetriesPerRequest: null, as BullMQ's workers require), retrying with a capped backoff, so
 * a restarted Redis is ridden out rather than failing jobs.
 */
export function connectionOptions(url: string): ConnectionOptions {
  return {
    url,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times: number) => Math.min(100 * 2 ** times, 2_000),
  };
}
