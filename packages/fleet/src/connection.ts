import { readFileSync } from "node:fs";
import type { ConnectionOptions } from "bullmq";
import { Redis } from "ioredis";

/** Where a fleet's queue lives. */
export interface FleetConnection {
  /**
   * `redis://[user:password@]host:port[/db]`, or `rediss://…` for TLS; REDIS_URL or
   * redis://127.0.0.1:6379 by default.
   */
  readonly redis?: string;
  /** The queue's name ("attractor" by default). */
  readonly queue?: string;
  /** A PEM file of the certificate authority a `rediss://` server's certificate must chain to (REDIS_CA_FILE). */
  readonly redisCaFile?: string;
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
 * a restarted Redis is ridden out rather than failing jobs. A `rediss://` URL turns TLS on with
 * certificate checks (ioredis reads the scheme); `caFile` adds a private certificate authority.
 */
export function connectionOptions(url: string, caFile?: string): ConnectionOptions {
  return {
    url,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times: number) => Math.min(100 * 2 ** times, 2_000),
    ...(caFile !== undefined && url.startsWith("rediss:") && { tls: { ca: readFileSync(caFile) } }),
  };
}

/** The connection options of a fleet connection (URL and CA file from the options or the environment). */
export function fleetConnectionOptions(
  connection: FleetConnection,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConnectionOptions {
  return connectionOptions(redisUrl(connection, env), connection.redisCaFile ?? env.REDIS_CA_FILE);
}

/** A plain client for the fleet's own keys, with the same options as the queue's. */
export function fleetClient(
  connection: FleetConnection,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Redis {
  const { url, ...rest } = fleetConnectionOptions(connection, env) as { url: string } & Record<
    string,
    unknown
  >;
  return new Redis(url, rest);
}

/** Redis could not be used: unreachable, a TLS certificate that does not check out, a refused password. */
export class RedisConnectionError extends Error {
  override readonly name = "RedisConnectionError";
}

const FATAL = /WRONGPASS|NOAUTH|NOPERM|CERT|certificate|self[- ]signed|unable to verify/i;

/** A URL fit for messages: its password replaced. */
export function redactedUrl(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*:)[^@]*@/, "$1***@");
}

/**
 * A client for the fleet's own keys once it is ready, or RedisConnectionError with the last error
 * (its password hidden) when it is not within `timeoutMs`: a wrong password or certificate is
 * reported instead of retried forever. Later outages are ridden out as usual.
 */
export async function connectFleet(
  connection: FleetConnection,
  env: Readonly<Record<string, string | undefined>> = process.env,
  timeoutMs = 15_000,
): Promise<Redis> {
  const redis = fleetClient(connection, env);
  let last = "no answer";
  let onError = (error: Error) => {
    last = error.message;
  };
  redis.on("error", (error: Error) => onError(error));
  const ready = await new Promise<boolean>((resolve) => {
    if (redis.status === "ready") return resolve(true);
    const timer = setTimeout(() => resolve(false), timeoutMs);
    onError = (error: Error) => {
      last = error.message;
      // Retrying cannot fix a refused password or an untrusted certificate.
      if (FATAL.test(error.message) || FATAL.test(String((error as NodeJS.ErrnoException).code))) {
        clearTimeout(timer);
        resolve(false);
      }
    };
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) {
    redis.disconnect();
    throw new RedisConnectionError(`cannot use Redis at ${redactedUrl(redisUrl(connection, env))}: ${last}`);
  }
  // Errors after this point are outages the client rides out.
  onError = () => undefined;
  return redis;
}

/** Redis stayed unreachable while an idle worker waited to see the queue empty. */
export class RedisUnreachableError extends Error {
  override readonly name = "RedisUnreachableError";
}
