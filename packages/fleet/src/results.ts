import type { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { connectFleet, DEFAULT_QUEUE, fleetConnectionOptions } from "./connection.js";
import { fleetKeys } from "./keys.js";
import { openQueue } from "./queue.js";
import { readStoredFile, readStoredResult, type StoredResult, storeDir } from "./result-store.js";
import { findRun, UnknownRunError } from "./run.js";
import { isFinal, type ReadOptions, runStates } from "./run-states.js";
import type { TaskOutcome } from "./run-task.js";
import type { QueuedTask } from "./task.js";

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
  /** The branch its changes were pushed to, and the pull request opened (tasks with `output`). */
  readonly branch: string | null;
  readonly pull_request: string | null;
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
        branch: stored?.branch ?? null,
        pull_request: stored?.pull_request ?? null,
      });
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  });
}

export type { StoredResult };
