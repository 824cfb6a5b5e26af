import type { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import {
  connectFleet,
  DEFAULT_QUEUE,
  type FleetConnection,
  fleetConnectionOptions,
  openQueue,
} from "./connection.js";
import { fleetKeys } from "./keys.js";
import { readStoredFile, readStoredResult, type StoredResult, storeDir } from "./result-store.js";
import { type FoundRun, findRun } from "./run.js";
import type { TaskOutcome } from "./run-task.js";
import type { QueuedTask } from "./task.js";

/** Options of the commands that read a run. */
export interface ReadOptions extends FleetConnection {
  /** The run (the latest of the queue by default). */
  readonly run?: string;
  /** The result store directory (see storeDir). */
  readonly store?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** One task as `attractor fleet results --json` prints it. */
export interface TaskResult {
  readonly id: string;
  readonly run: string;
  /**
   * `missing`: the run's manifest lists the task but neither Redis nor the result store knows it
   * (Redis lost it); `cancelled`: stopped by `fleet cancel`.
   */
  readonly status: "completed" | "failed" | "cancelled" | "waiting" | "active" | "delayed" | "missing";
  /** Attempts started, re-runs after a lost worker included. */
  readonly attempts: number;
  readonly result: string | null;
  readonly patch: string | null;
  readonly usage: Record<string, number> | null;
  readonly cost_usd: number | null;
  readonly duration_ms: number | null;
  readonly turns: number | null;
  readonly session_id: string | null;
  readonly error: string | null;
  /** The isolation the task ran under, as its worker reported it. */
  readonly isolation: string | null;
}

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

async function withClients<T>(
  options: ReadOptions,
  use: (redis: Redis, queue: Queue, name: string, store: string) => Promise<T>,
): Promise<T> {
  const env = options.env ?? process.env;
  const name = options.queue ?? DEFAULT_QUEUE;
  const redis = await connectFleet(options, env);
  const queue = openQueue(name, fleetConnectionOptions(options, env));
  try {
    return await use(redis, queue, name, storeDir(options.store, env));
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

type Final = "completed" | "failed" | "cancelled";
const isFinal = (s: string | null | undefined): s is Final =>
  s === "completed" || s === "failed" || s === "cancelled";

/**
 * Where each task of a run stands, from the outcomes Redis keeps and, for tasks Redis does not
 * know, the result store: a final state, `pending` (its job is on the queue) or `missing`.
 * One round trip for the outcomes and one for the pending jobs' existence.
 */
async function runStates(
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
  return withClients(options, async (redis, queue, name, store) => {
    const found = await findRun(redis, store, name, options.run);
    if (found === undefined) {
      if (options.run !== undefined) throw new UnknownRunError(options.run, name);
      return emptyStatus;
    }
    const { states, errors } = await runStates(redis, name, store, found);
    const count = (s: string) => states.filter((x) => x === s).length;
    const counts = await queue.getJobCounts(
      "active",
      "waiting",
      "delayed",
      "prioritized",
      "waiting-children",
    );
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
      active: counts.active ?? 0,
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts["waiting-children"] ?? 0),
      delayed: counts.delayed ?? 0,
      perMinute: Math.round(perMinute * 10) / 10,
      etaSeconds: pending === 0 ? 0 : perMinute > 0 ? Math.round((pending / perMinute) * 60) : null,
      failures: states
        .flatMap((s, i) => (s === "failed" ? [{ id: ids[i] as string, error: errors[i] ?? "failed" }] : []))
        .slice(0, 50),
      missingIds: states.flatMap((s, i) => (s === "missing" ? [ids[i] as string] : [])).slice(0, 50),
    };
  });
}

/** Every task of a run (the latest by default) with its state and, once finished, its result; sorted by id. */
export function readResults(options: ReadOptions = {}): Promise<TaskResult[]> {
  return withClients(options, async (redis, queue, name, store) => {
    const found = await findRun(redis, store, name, options.run);
    if (found === undefined) {
      if (options.run !== undefined) throw new UnknownRunError(options.run, name);
      return [];
    }
    const { states, errors } = await runStates(redis, name, store, found);
    const ids = found.manifest.tasks;
    const attempts = ids.length === 0 ? [] : await redis.hmget(fleetKeys(name).attempts, ...ids);
    const out: TaskResult[] = [];
    for (const [i, id] of ids.entries()) {
      const state = states[i] ?? "missing";
      const stored = isFinal(state) ? await readStoredResult(store, name, id) : undefined;
      let status: TaskResult["status"] = state === "pending" ? "waiting" : state;
      let fromJob: TaskOutcome | undefined;
      let jobAttempts = 0;
      if (state === "pending" || stored === undefined) {
        const job = (await queue.getJob(id)) as Job<QueuedTask, TaskOutcome> | undefined;
        if (job !== undefined) {
          jobAttempts = job.attemptsStarted ?? job.attemptsMade;
          fromJob = job.returnvalue ?? undefined;
          if (state === "pending") {
            const s = await job.getState();
            status =
              s === "active" || s === "delayed" ? s : s === "completed" || s === "failed" ? s : "waiting";
          }
        }
      }
      const patch = isFinal(state) ? ((await readStoredFile(store, name, id, "patch")) ?? null) : null;
      out.push({
        id,
        run: found.manifest.id,
        status,
        attempts: Math.max(Number(attempts[i] ?? 0), stored?.attempts ?? 0, jobAttempts),
        result: stored?.result ?? fromJob?.result ?? null,
        patch,
        usage: stored?.usage ?? fromJob?.usage ?? null,
        cost_usd: stored?.cost_usd ?? fromJob?.cost_usd ?? null,
        duration_ms: stored?.duration_ms ?? fromJob?.duration_ms ?? null,
        turns: stored?.turns ?? fromJob?.turns ?? null,
        session_id: stored?.session_id ?? fromJob?.session_id ?? null,
        error:
          status === "missing"
            ? `lost: the run's manifest lists this task but Redis${found.inRedis ? "" : " (which lost the run itself)"} and the result store do not know it`
            : status === "failed" || status === "cancelled"
              ? (stored?.error ?? errors[i] ?? status)
              : null,
        isolation: stored?.isolation ?? null,
      });
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  });
}

/** The transcript a finished task stored, by task id. */
export function readTranscript(id: string, options: ReadOptions = {}): Promise<string | undefined> {
  const env = options.env ?? process.env;
  return readStoredFile(storeDir(options.store, env), options.queue ?? DEFAULT_QUEUE, id, "transcript.jsonl");
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

export type { StoredResult };
