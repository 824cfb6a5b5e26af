import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { fleetKeys } from "./keys.js";
import {
  readLatestRun,
  readStoredRunManifest,
  storedRunManifests,
  storeLatestRun,
  storeRunManifest,
} from "./result-store.js";
import { registerRun } from "./run-counts.js";

/** What one submit put on the queue: the yardstick `status` and `results` measure against. */
export interface RunManifest {
  readonly id: string;
  readonly queue: string;
  /** ISO time of the submit. */
  readonly created_at: string;
  /** Every task id of the submit, those already queued by an earlier run included. */
  readonly tasks: readonly string[];
}

/** A fresh run id: sortable by time, unique across submitters. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  return `run-${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Records a run: in the store first (it outlives Redis), then in Redis with its counts. */
export async function recordRun(redis: Redis, store: string, manifest: RunManifest): Promise<void> {
  await storeRunManifest(store, manifest.queue, manifest);
  await storeLatestRun(store, manifest.queue, manifest);
  const keys = fleetKeys(manifest.queue);
  await redis.set(keys.run(manifest.id), JSON.stringify(manifest));
  await registerRun(redis, manifest.queue, manifest);
  // Listed last: a run is the latest only once its counts are complete.
  await redis.zadd(keys.runs, Date.parse(manifest.created_at), manifest.id);
}

/**
 * The id of a queue's latest run: Redis's, unless the store noted a newer one (Redis lost it).
 * Reads one small file of the store (every manifest only for a store that has no note).
 */
export async function latestRunId(redis: Redis, store: string, queue: string): Promise<string | undefined> {
  const [latest, score] = await redis.zrevrange(fleetKeys(queue).runs, 0, 0, "WITHSCORES");
  const noted =
    (await readLatestRun(store, queue)) ??
    (await storedRunManifests<RunManifest>(store, queue)).reduce<RunManifest | undefined>(
      (best, m) => (best === undefined || m.created_at > best.created_at ? m : best),
      undefined,
    );
  if (latest === undefined) return noted?.id;
  if (noted !== undefined && Date.parse(noted.created_at) > Number(score)) return noted.id;
  return latest;
}

/** Where a run's manifest was found: Redis, or only the store (Redis lost it). */
export interface FoundRun {
  readonly manifest: RunManifest;
  readonly inRedis: boolean;
}

/**
 * A run's manifest by id, or the latest run of the queue when `id` is undefined; looked up in
 * Redis and in the store, so a run Redis forgot is still found (and said to be forgotten).
 */
export async function findRun(
  redis: Redis,
  store: string,
  queue: string,
  id: string | undefined,
): Promise<FoundRun | undefined> {
  const runId = id ?? (await latestRunId(redis, store, queue));
  if (runId === undefined) return undefined;
  const text = await redis.get(fleetKeys(queue).run(runId));
  if (text !== null) return { manifest: JSON.parse(text) as RunManifest, inRedis: true };
  const local = await readStoredRunManifest<RunManifest>(store, queue, runId);
  return local === undefined ? undefined : { manifest: local, inRedis: false };
}

/** Every run of a queue, Redis's and the store's, oldest first. */
export async function listRuns(redis: Redis, store: string, queue: string): Promise<RunManifest[]> {
  const keys = fleetKeys(queue);
  const byId = new Map<string, RunManifest>();
  for (const m of await storedRunManifests<RunManifest>(store, queue)) byId.set(m.id, m);
  const ids = await redis.zrange(keys.runs, "0", "-1");
  if (ids.length > 0) {
    const texts = await redis.mget(...ids.map((i) => keys.run(i)));
    for (const text of texts)
      if (text !== null) byId.set((JSON.parse(text) as RunManifest).id, JSON.parse(text));
  }
  return [...byId.values()].sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
}

/** No run of that id in the queue, neither in Redis nor in the result store. */
export class UnknownRunError extends Error {
  override readonly name = "UnknownRunError";
  constructor(
    readonly run: string,
    readonly queue: string,
  ) {
    super(`no run ${run} in queue ${queue} (neither Redis nor the result store knows it)`);
  }
}
