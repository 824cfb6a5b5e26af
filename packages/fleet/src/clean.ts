import { connectFleet, DEFAULT_QUEUE, fleetConnectionOptions } from "./connection.js";
import { fleetKeys } from "./keys.js";
import { openQueue } from "./queue.js";
import { removeStored, removeStoredRun, storeDir, storeLatestRun } from "./result-store.js";
import { listRuns } from "./run.js";
import { forgetRunCounts } from "./run-counts.js";
import type { ReadOptions } from "./run-states.js";

/** What `fleet clean` removes: one run, or every run older than a number of seconds. */
export type CleanTarget = { readonly run: string } | { readonly olderThanS: number };

/** What a clean removed. */
export interface CleanReport {
  /** Runs removed whole (manifest, outcomes, stored results). */
  readonly runs: readonly string[];
  /** Runs left because some of their tasks are still on the queue. */
  readonly unfinished: readonly string[];
  readonly tasks: number;
}

/**
 * Removes finished runs: their jobs, outcomes, attempt counts and stored results (patches,
 * transcripts, logs) and their manifests, from Redis and from the result store. A run with a
 * task still waiting or running is left whole; a task another remaining run lists is kept.
 */
export async function cleanFleet(target: CleanTarget, options: ReadOptions = {}): Promise<CleanReport> {
  const env = options.env ?? process.env;
  const name = options.queue ?? DEFAULT_QUEUE;
  const store = storeDir(options.store, env);
  const redis = await connectFleet(options, env);
  const queue = openQueue(name, fleetConnectionOptions(options, env));
  const keys = fleetKeys(name);
  try {
    const cutoff = "olderThanS" in target ? Date.now() - target.olderThanS * 1000 : undefined;
    const all = await listRuns(redis, store, name);
    const runs = all.filter((r) =>
      "run" in target ? r.id === target.run : Date.parse(r.created_at) < (cutoff as number),
    );
    const cleaned: string[] = [];
    const unfinished: string[] = [];
    let tasks = 0;
    for (const run of runs) {
      const jobs = await Promise.all(run.tasks.map((id) => queue.getJob(id)));
      const states = await Promise.all(jobs.map((j) => j?.getState()));
      if (states.some((s) => s !== undefined && s !== "completed" && s !== "failed" && s !== "unknown")) {
        unfinished.push(run.id);
        continue;
      }
      // A task that a run left in place lists too keeps its job, outcome and stored result.
      const kept = new Set(
        all.filter((r) => r.id !== run.id && !cleaned.includes(r.id)).flatMap((r) => r.tasks),
      );
      const gone = run.tasks.filter((id) => !kept.has(id));
      for (const [i, job] of jobs.entries())
        if (!kept.has(run.tasks[i] as string)) await job?.remove().catch(() => undefined);
      if (gone.length > 0)
        await redis
          .multi()
          .hdel(keys.outcome, ...gone)
          .hdel(keys.error, ...gone)
          .hdel(keys.attempts, ...gone)
          .hdel(keys.runsOf, ...gone)
          .zrem(keys.finished, ...gone)
          .srem(keys.cancel, ...gone)
          .exec();
      for (const id of gone) await removeStored(store, name, id);
      await forgetRunCounts(redis, name, run.id);
      await redis.multi().del(keys.run(run.id)).zrem(keys.runs, run.id).exec();
      await removeStoredRun(store, name, run.id);
      cleaned.push(run.id);
      tasks += gone.length;
    }
    // The store's note of its latest run moves to the newest run left.
    const left = all.filter((r) => !cleaned.includes(r.id)).at(-1);
    if (left !== undefined && cleaned.length > 0) await storeLatestRun(store, name, left);
    return { runs: cleaned, unfinished, tasks };
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
