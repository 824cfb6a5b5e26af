import type { Redis } from "ioredis";
import { DEFAULT_QUEUE } from "./connection.js";
import { fleetKeys } from "./keys.js";
import { readStoredFile, readStoredResult, storeDir } from "./result-store.js";
import { findRun, latestRunId, UnknownRunError } from "./run.js";
import { readRunCounts } from "./run-counts.js";
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
  /** Some of the missing tasks' ids (the first 50); `missing` counts them all. */
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

/** The queue-wide part of a status: job counts and the rate of finishes over five minutes. */
async function queueFigures(redis: Redis, name: string, createdAt: string) {
  const now = Date.now();
  const window = 5 * 60_000;
  const [counts, recent] = await Promise.all([
    queueCounts(redis, name),
    redis.zcount(fleetKeys(name).finished, now - window, "+inf"),
  ]);
  const since = Math.max(now - Date.parse(createdAt), 1_000);
  return { counts, perMinute: recent / (Math.min(since, window) / 60_000) };
}

function statusOf(
  run: string,
  runInRedis: boolean,
  tally: {
    total: number;
    completed: number;
    failed: number;
    cancelled: number;
    pending: number;
    missingIds: string[];
    failures: { id: string; error: string }[];
  },
  figures: Awaited<ReturnType<typeof queueFigures>>,
): FleetStatus {
  const { pending } = tally;
  const { perMinute } = figures;
  return {
    run,
    runInRedis,
    total: tally.total,
    completed: tally.completed,
    failed: tally.failed,
    cancelled: tally.cancelled,
    pending,
    missing: tally.missingIds.length,
    active: figures.counts.active,
    waiting: figures.counts.waiting,
    delayed: figures.counts.delayed,
    perMinute: Math.round(perMinute * 10) / 10,
    etaSeconds: pending === 0 ? 0 : perMinute > 0 ? Math.round((pending / perMinute) * 60) : null,
    failures: tally.failures.slice(0, 50),
    missingIds: tally.missingIds.slice(0, 50),
  };
}

/**
 * Counts, rate, ETA, failures and lost tasks of a run, measured against its manifest. Reads the
 * run's counts, kept as its tasks finish, and looks at its open tasks only: the same few round
 * trips whatever the number of finished tasks. Where the counts are missing or do not add up (a
 * run of an older version, a Redis that lost data), reads one field per task instead.
 */
export function fleetStatus(options: ReadOptions = {}): Promise<FleetStatus> {
  return withRedis(options, async (redis, name, store) => {
    const runId = options.run ?? (await latestRunId(redis, store, name));
    if (runId === undefined) return emptyStatus;
    const counts = await readRunCounts(redis, name, runId);
    if (counts !== undefined) {
      const tally = {
        total: counts.total,
        completed: counts.completed,
        failed: counts.failed,
        cancelled: counts.cancelled,
        pending: counts.queued,
        missingIds: [] as string[],
        failures: [...counts.failures],
      };
      for (const { id, state } of counts.odd) {
        // Redis forgot the task; the store may still have its result.
        const stored = state === "gone" ? await readStoredResult(store, name, id) : undefined;
        const final = state === "gone" ? stored?.status : state;
        if (final === undefined) tally.missingIds.push(id);
        else tally[final]++;
        if (final === "failed" && stored !== undefined)
          tally.failures.push({ id, error: stored.error ?? "failed" });
      }
      return statusOf(runId, true, tally, await queueFigures(redis, name, counts.createdAt));
    }
    const found = await findRun(redis, store, name, runId);
    if (found === undefined) {
      if (options.run !== undefined) throw new UnknownRunError(options.run, name);
      return emptyStatus;
    }
    const { states, errors } = await runStates(redis, name, store, found);
    const ids = found.manifest.tasks;
    const count = (s: string) => states.filter((x) => x === s).length;
    return statusOf(
      found.manifest.id,
      found.inRedis,
      {
        total: ids.length,
        completed: count("completed"),
        failed: count("failed"),
        cancelled: count("cancelled"),
        pending: count("pending"),
        missingIds: states.flatMap((s, i) => (s === "missing" ? [ids[i] as string] : [])),
        failures: states.flatMap((s, i) =>
          s === "failed" ? [{ id: ids[i] as string, error: errors[i] ?? "failed" }] : [],
        ),
      },
      await queueFigures(redis, name, found.manifest.created_at),
    );
  });
}

/** The transcript a finished task stored, by task id. */
export function readTranscript(id: string, options: ReadOptions = {}): Promise<string | undefined> {
  const env = options.env ?? process.env;
  return readStoredFile(storeDir(options.store, env), options.queue ?? DEFAULT_QUEUE, id, "transcript.jsonl");
}
