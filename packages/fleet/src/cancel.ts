import { connectFleet, DEFAULT_QUEUE, fleetConnectionOptions } from "./connection.js";
import { fleetKeys } from "./keys.js";
import { openQueue } from "./queue.js";
import { storeDir, storeResult } from "./result-store.js";
import { findRun, UnknownRunError } from "./run.js";
import { recordFinish } from "./run-counts.js";
import type { ReadOptions } from "./run-states.js";
import type { QueuedTask } from "./task.js";

/** What to cancel: some tasks by id, a run, or everything on the queue. */
export type CancelTarget =
  | { readonly kind: "tasks"; readonly ids: readonly string[] }
  | { readonly kind: "run"; readonly run?: string }
  | { readonly kind: "queue" };

/** What a cancel did. */
export interface CancelReport {
  /** Tasks taken off the queue before they ran. */
  readonly removed: readonly string[];
  /** Running tasks told to stop: their workers end the attempt's process group and workspace within a second or two. */
  readonly stopping: readonly string[];
  /** Tasks that had finished already (left as they are). */
  readonly finished: readonly string[];
  /** Ids the queue does not know. */
  readonly unknown: readonly string[];
}

const REASON = "cancelled by fleet cancel";

/**
 * Cancels tasks: each id is marked cancelled in Redis (a worker that takes it up refuses it; a
 * worker running it ends the attempt), and a task still waiting is removed from the queue and
 * recorded as cancelled at once. A cancelled task is final: it is not retried.
 */
export async function cancelTasks(target: CancelTarget, options: ReadOptions = {}): Promise<CancelReport> {
  const env = options.env ?? process.env;
  const name = options.queue ?? DEFAULT_QUEUE;
  const store = storeDir(options.store, env);
  const redis = await connectFleet(options, env);
  const queue = openQueue(name, fleetConnectionOptions(options, env));
  const keys = fleetKeys(name);
  try {
    let ids: readonly string[];
    if (target.kind === "tasks") ids = target.ids;
    else if (target.kind === "run") {
      const found = await findRun(redis, store, name, target.run);
      if (found === undefined) throw new UnknownRunError(target.run ?? "(latest)", name);
      ids = found.manifest.tasks;
    } else {
      const jobs = await queue.getJobs(["waiting", "delayed", "prioritized", "active", "waiting-children"]);
      ids = jobs.flatMap((j) => (j?.id !== undefined ? [j.id] : []));
    }
    const removed: string[] = [];
    const stopping: string[] = [];
    const finished: string[] = [];
    const unknown: string[] = [];
    const outcomes = ids.length === 0 ? [] : await redis.hmget(keys.outcome, ...ids);
    for (const [i, id] of ids.entries()) {
      if (outcomes[i] !== null) {
        finished.push(id);
        continue;
      }
      const job = await queue.getJob(id);
      if (job === undefined) {
        unknown.push(id);
        continue;
      }
      const state = await job.getState();
      if (state === "completed" || state === "failed") {
        finished.push(id);
        continue;
      }
      await redis.sadd(keys.cancel, id);
      // A job that is running (locked) cannot be removed: its worker sees the mark and stops it.
      const taken =
        state !== "active" &&
        (await job.remove().then(
          () => true,
          () => false,
        ));
      if (!taken) {
        stopping.push(id);
        continue;
      }
      const task = job.data as QueuedTask;
      await storeResult(
        store,
        name,
        {
          id,
          run: task.run,
          status: "cancelled",
          attempts: job.attemptsMade,
          result: "",
          usage: {},
          cost_usd: null,
          turns: 0,
          duration_ms: 0,
          error: REASON,
          finished_at: new Date().toISOString(),
        },
        { patch: "" },
      );
      await recordFinish(redis, name, { id, run: task.run, status: "cancelled", error: REASON });
      removed.push(id);
    }
    return { removed, stopping, finished, unknown };
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
