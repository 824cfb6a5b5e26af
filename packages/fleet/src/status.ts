import { DEFAULT_QUEUE } from "./connection.js";
import { fleetKeys } from "./keys.js";
import { readStoredFile, storeDir } from "./result-store.js";
import { findRun, UnknownRunError } from "./run.js";
import { queueCounts, type ReadOptions, runStates, withRedis } from "./run-states.js";

/** Progress of a run, for `attractor fleet status`. */
export interface FleetStatus {
  /** The run measured, or null when the queue has none. */
  readonly run: string | null;
  /** False when only the result store still knows the run: Redis lost its data. */
  readonly runInRedis: boolean;
  /** Tasks in the run's manifest. */
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
  readonly cancelled: number;
  /** The run's tasks still on the queue (waiting, delayed or running). */
  readonly pending: number;
  /** The run's tasks nobody knows any more: lost. */
  readonly missing: number;
  /** Across the whole queue (every run): running, waiting, delayed. */
  readonly active: number;
  readonly waiting: number;
  readonly delayed: number;
  /** Tasks finished per minute over the last five minutes. */
  readonly perMinute: number;
  /** Estimated seconds until every task has finished; null when nothing finishes yet. */
  readonly etaSeconds: number | null;
  /** The failed tasks and why (the first 50). */
  readonly failures: readonly { readonly id: string; readonly error: string }[];
  /** Some of the missing tasks' ids (the first 50). */
  readonly missingIds: readonly string[];
}

const emptyStatus: FleetStatus = {
  run: null,
  runInRedis: true,
  total: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
  pending: 0,
  missing: 0,
  active: 0,
  waiting: 0,
  delayed: 0,
  perMinute: 0,
  etaSeconds: 0,
  failures: [],
  missingIds: [],
};

/**
 * Counts, rate, ETA, failures and lost tasks of a run, measured against its manifest. Reads
 * BullMQ's counters and one small field per task: never a job's result or transcript.
 */
export function fleetStatus(options: ReadOptions = {}): Promise<FleetStatus> {
  return withRedis(options, async (redis, name, store) => {
    const found = await findRun(redis, store, name, options.run);
    if (found === undefined) {
      if (options.run !== undefined) throw new UnknownRunError(options.run, name);
      return emptyStatus;
    }
    const { states, errors } = await runStates(redis, name, store, found);
    const count = (s: string) => states.filter((x) => x === s).length;
    const counts = await queueCounts(redis, name);
    const now = Date.now();
    const window = 5 * 60_000;
    const recent = await redis.zcount(fleetKeys(name).finished, now - window, "+inf");
    const since = Math.max(now - Date.parse(found.manifest.created_at), 1_000);
    const perMinute = recent / (Math.min(since, window) / 60_000);
    const pending = count("pending");
    const ids = found.manifest.tasks;
    return {
      run: found.manifest.id,
      runInRedis: found.inRedis,
      total: ids.length,
      completed: count("completed"),
      failed: count("failed"),
      cancelled: count("cancelled"),
      pending,
      missing: count("missing"),
      active: counts.active,
      waiting: counts.waiting,
      delayed: counts.delayed,
      perMinute: Math.round(perMinute * 10) / 10,
      etaSeconds: pending === 0 ? 0 : perMinute > 0 ? Math.round((pending / perMinute) * 60) : null,
      failures: states
        .flatMap((s, i) => (s === "failed" ? [{ id: ids[i] as string, error: errors[i] ?? "failed" }] : []))
        .slice(0, 50),
      missingIds: states.flatMap((s, i) => (s === "missing" ? [ids[i] as string] : [])).slice(0, 50),
    };
  });
}

/** The transcript a finished task stored, by task id. */
export function readTranscript(id: string, options: ReadOptions = {}): Promise<string | undefined> {
  const env = options.env ?? process.env;
  return readStoredFile(storeDir(options.store, env), options.queue ?? DEFAULT_QUEUE, id, "transcript.jsonl");
}
