import { connectFleet, DEFAULT_QUEUE, fleetConnectionOptions } from "./connection.js";
import { fleetKeys } from "./keys.js";
import { openQueue } from "./queue.js";
import { removeStored, removeStoredRun, storeDir } from "./result-store.js";
import { listRuns } from "./run.js";
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
 * task still waiting or running is left whole.
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
    const runs = (await listRuns(redis, store, name)).filter((r) =>
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
      for (const job of jobs) await job?.remove().catch(() => undefined);
      if (run.tasks.length > 0)
        await redis
          .multi()
          .hdel(keys.outcome, ...run.tasks)
          .hdel(keys.error, ...run.tasks)
          .hdel(keys.attempts, ...run.tasks)
          .zrem(keys.finished, ...run.tasks)
          .srem(keys.cancel, ...run.tasks)
          .exec();
      for (const id of run.tasks) await removeStored(store, name, id);
      await redis.multi().del(keys.run(run.id)).zrem(keys.runs, run.id).exec();
      await removeStoredRun(store, name, run.id);
      cleaned.push(run.id);
      tasks += run.tasks.length;
    }
    return { runs: cleaned, unfinished, tasks };
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
