import { connectFleet, DEFAULT_QUEUE, type FleetConnection, fleetConnectionOptions } from "./connection.js";
import { requireDurableRedis } from "./durability.js";
import { fleetKeys } from "./keys.js";
import { openQueue } from "./queue.js";
import { storeDir } from "./result-store.js";
import { newRunId, type RunManifest, recordRun } from "./run.js";
import type { FleetTask, QueuedTask } from "./task.js";

/**
 * The priority of a task that names none. Every job gets one: BullMQ would take jobs without a
 * priority before all prioritised ones, the opposite of what a task file means.
 */
const DEFAULT_PRIORITY = 100;

export interface SubmitOptions extends FleetConnection {
  /** Attempts per task before it ends as failed (3). */
  readonly attempts?: number;
  /** The result store directory, where the run's manifest is mirrored (see storeDir). */
  readonly store?: string;
  /** The run's id (a fresh one by default). */
  readonly runId?: string;
  /** Submit even to a Redis that does not persist or may evict (its loss is then reported, not prevented). */
  readonly allowVolatileRedis?: boolean;
  /** Finished jobs kept in Redis (their results stay in the store): at most this many (1000)… */
  readonly keepFinished?: number;
  /** …and none older than this many seconds (7 days). */
  readonly keepFinishedForS?: number;
  /** The environment (process.env): REDIS_URL, REDIS_CA_FILE, ATTRACTOR_FLEET_STORE. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Puts tasks on the queue as one run: its manifest (id, time, every task id) is written to the
 * result store and to Redis first, so `status` and `results` can tell a lost task from a task
 * never submitted. Each task is a job whose id is the task's id: a task already in the queue or
 * already finished is left as it is, so submitting a file twice runs nothing twice. Refuses a
 * Redis that would lose tasks (VolatileRedisError) unless allowVolatileRedis.
 */
export async function submitTasks(
  tasks: readonly FleetTask[],
  options: SubmitOptions = {},
): Promise<{ run: string; added: number; existing: number }> {
  const env = options.env ?? process.env;
  const name = options.queue ?? DEFAULT_QUEUE;
  const redis = await connectFleet(options, env);
  const queue = openQueue(name, fleetConnectionOptions(options, env));
  try {
    await requireDurableRedis(redis, options.allowVolatileRedis ?? false);
    const manifest: RunManifest = {
      id: options.runId ?? newRunId(),
      queue: name,
      created_at: new Date().toISOString(),
      tasks: tasks.map((t) => t.id),
    };
    await recordRun(redis, storeDir(options.store, env), manifest);
    const keys = fleetKeys(name);
    const finished = tasks.length === 0 ? [] : await redis.hmget(keys.outcome, ...tasks.map((t) => t.id));
    const present = await Promise.all(tasks.map((t) => queue.getJob(t.id)));
    const fresh = tasks.filter((_, i) => present[i] === undefined && finished[i] === null);
    const keep = {
      count: options.keepFinished ?? 1_000,
      age: options.keepFinishedForS ?? 7 * 86_400,
    };
    for (let i = 0; i < fresh.length; i += 500) {
      await queue.addBulk(
        fresh.slice(i, i + 500).map((task) => ({
          name: "task",
          data: { ...task, run: manifest.id } satisfies QueuedTask,
          opts: {
            jobId: task.id,
            priority: Math.min(task.priority ?? DEFAULT_PRIORITY, 2_097_152),
            attempts: options.attempts ?? 3,
            backoff: { type: "exponential", delay: 1_000 },
            removeOnComplete: keep,
            removeOnFail: keep,
          },
        })),
      );
    }
    return { run: manifest.id, added: fresh.length, existing: tasks.length - fresh.length };
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
