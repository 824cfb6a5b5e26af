import { Queue } from "bullmq";
import { connectionOptions, DEFAULT_QUEUE, type FleetConnection, redisUrl } from "./connection.js";
import type { FleetTask } from "./task.js";

export interface SubmitOptions extends FleetConnection {
  /** Attempts per task before it ends as failed (3). */
  readonly attempts?: number;
}

/**
 * Puts tasks on the queue, each as a job whose id is the task's id: a task already in the queue
 * (waiting, running, done or failed) is left as it is, so submitting a file twice runs nothing
 * twice. Resolves to how many tasks were new.
 */
export async function submitTasks(
  tasks: readonly FleetTask[],
  options: SubmitOptions = {},
): Promise<{ added: number; existing: number }> {
  const queue = new Queue(options.queue ?? DEFAULT_QUEUE, {
    connection: connectionOptions(redisUrl(options)),
  });
  try {
    const present = await Promise.all(tasks.map((t) => queue.getJob(t.id)));
    const fresh = tasks.filter((_, i) => present[i] === undefined);
    for (let i = 0; i < fresh.length; i += 500) {
      await queue.addBulk(
        fresh.slice(i, i + 500).map((task) => ({
          name: "task",
          data: task,
          opts: {
            jobId: task.id,
            attempts: options.attempts ?? 3,
            backoff: { type: "exponential", delay: 1_000 },
            removeOnComplete: false,
            removeOnFail: false,
          },
        })),
      );
    }
    return { added: fresh.length, existing: tasks.length - fresh.length };
  } finally {
    await queue.close();
  }
}
