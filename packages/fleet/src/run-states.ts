import type { Redis } from "ioredis";
import { connectFleet, DEFAULT_QUEUE, type FleetConnection } from "./connection.js";
import { fleetKeys } from "./keys.js";
import { readStoredResult, storeDir } from "./result-store.js";
import type { FoundRun } from "./run.js";

/** Options of the commands that read a run. */
export interface ReadOptions extends FleetConnection {
  /** The run (the latest of the queue by default). */
  readonly run?: string;
  /** The result store directory (see storeDir). */
  readonly store?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Runs `use` with a ready client for the fleet's keys, closed after. */
export async function withRedis<T>(
  options: ReadOptions,
  use: (redis: Redis, name: string, store: string) => Promise<T>,
): Promise<T> {
  const env = options.env ?? process.env;
  const redis = await connectFleet(options, env);
  try {
    return await use(redis, options.queue ?? DEFAULT_QUEUE, storeDir(options.store, env));
  } finally {
    redis.disconnect();
  }
}

export type Final = "completed" | "failed" | "cancelled";
export const isFinal = (s: string | null | undefined): s is Final =>
  s === "completed" || s === "failed" || s === "cancelled";

/**
 * Where each task of a run stands, from the outcomes Redis keeps and, for tasks Redis does not
 * know, the result store: a final state, `pending` (its job is on the queue) or `missing`.
 * One round trip for the outcomes and one for the pending jobs' existence.
 */
export async function runStates(
  redis: Redis,
  name: string,
  store: string,
  found: FoundRun,
): Promise<{ states: (Final | "pending" | "missing")[]; errors: (string | null)[] }> {
  const keys = fleetKeys(name);
  const ids = found.manifest.tasks;
  if (ids.length === 0) return { states: [], errors: [] };
  const outcomes = await redis.hmget(keys.outcome, ...ids);
  const errors = await redis.hmget(keys.error, ...ids);
  const open = ids.flatMap((_id, i) => (isFinal(outcomes[i]) ? [] : [i]));
  const pipe = redis.pipeline();
  for (const i of open) pipe.exists(`bull:${name}:${ids[i]}`);
  const exists = open.length === 0 ? [] : ((await pipe.exec()) ?? []).map(([, n]) => n === 1);
  const states: (Final | "pending" | "missing")[] = outcomes.map((o) => (isFinal(o) ? o : "missing"));
  for (const [k, i] of open.entries()) {
    if (exists[k]) {
      states[i] = "pending";
      continue;
    }
    // Redis forgot the task; the store may still have its result.
    const stored = await readStoredResult(store, name, ids[i] as string);
    if (stored !== undefined) {
      states[i] = stored.status;
      errors[i] = stored.error ?? null;
    }
  }
  return { states, errors };
}

/**
 * The queue's job counts read straight from BullMQ's keys (what Queue.getJobCounts reads), so that
 * `fleet status` does not load BullMQ at all.
 */
export async function queueCounts(
  redis: Redis,
  name: string,
): Promise<{ active: number; waiting: number; delayed: number }> {
  const key = (k: string) => `bull:${name}:${k}`;
  const replies =
    (await redis
      .pipeline()
      .llen(key("active"))
      .llen(key("wait"))
      .llen(key("paused"))
      .zcard(key("prioritized"))
      .zcard(key("waiting-children"))
      .zcard(key("delayed"))
      .exec()) ?? [];
  const n = replies.map(([, v]) => Number(v ?? 0));
  return {
    active: n[0] ?? 0,
    waiting: (n[1] ?? 0) + (n[2] ?? 0) + (n[3] ?? 0) + (n[4] ?? 0),
    delayed: n[5] ?? 0,
  };
}
