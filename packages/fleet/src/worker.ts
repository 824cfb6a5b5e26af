import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Job, Queue, Worker } from "bullmq";
import { connectionOptions, DEFAULT_QUEUE, type FleetConnection, redisUrl } from "./connection.js";
import { type AttractorCommand, runTask, type TaskOutcome } from "./run-task.js";
import type { FleetTask } from "./task.js";
import { prepareWorkspace } from "./workspace.js";

export interface WorkerOptions extends FleetConnection {
  /** How to start attractor, e.g. [process.execPath, "/path/to/attractor.js"]. */
  readonly command: AttractorCommand;
  /** Tasks run at once by this worker (1). */
  readonly concurrency?: number;
  /** Stop once the queue has nothing waiting, delayed or running. */
  readonly exitWhenIdle?: boolean;
  /** Where workspaces are made (the system's temp directory). */
  readonly workRoot?: string;
  /** The environment tasks run with: provider keys and base URLs (process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** At most this many tasks start per minute across every worker of the queue (BullMQ's limiter). */
  readonly maxPerMinute?: number;
  /** How long the whole queue pauses after a provider answers 429 (30 000 ms). */
  readonly rateLimitBackoffMs?: number;
  /** A task whose worker stops renewing its lock this long is taken up again elsewhere (30 000 ms). */
  readonly lockDurationMs?: number;
  /** Stops the worker: no new task is taken, running ones are finished. */
  readonly signal?: AbortSignal;
  /** Called after each task attempt. */
  readonly onOutcome?: (task: FleetTask, outcome: TaskOutcome | { status: "error"; error: string }) => void;
}

/** A task attempt that failed, carrying what it produced for the failed job's record. */
class TaskFailedError extends Error {
  override readonly name = "TaskFailedError";
}

/**
 * Takes tasks from the queue and runs each in a fresh workspace until stopped (or, with
 * exitWhenIdle, until the queue is empty). Reliability is BullMQ's: a worker that dies holding a
 * task loses its lock and the task is run again by another worker; a task that fails is retried
 * up to its attempts; a provider's 429 pauses the whole queue instead of failing the task.
 * Resolves with the number of attempts this worker ran.
 */
export async function runWorker(options: WorkerOptions): Promise<{ attempts: number }> {
  const name = options.queue ?? DEFAULT_QUEUE;
  const connection = connectionOptions(redisUrl(options, options.env));
  const queue = new Queue(name, { connection });
  const env = options.env ?? process.env;
  const workRoot = options.workRoot ?? join(tmpdir(), "attractor-fleet");
  const backoff = options.rateLimitBackoffMs ?? 30_000;
  let attempts = 0;

  const worker = new Worker<FleetTask, TaskOutcome>(
    name,
    async (job: Job<FleetTask, TaskOutcome>) => {
      attempts++;
      const task = job.data;
      const workspace = await prepareWorkspace(workRoot, task.repo, task.ref).catch((error: Error) => {
        options.onOutcome?.(task, { status: "error", error: error.message });
        throw error;
      });
      try {
        const outcome = await runTask(task, workspace, options.command, env);
        options.onOutcome?.(task, outcome);
        if (outcome.status === "completed") return outcome;
        if (outcome.error?.status_code === 429) {
          // The provider is saturated: the whole queue waits, and this attempt does not count.
          await queue.rateLimit(backoff);
          throw Worker.RateLimitError();
        }
        throw new TaskFailedError(outcome.error?.message ?? "the task failed");
      } finally {
        await workspace.remove();
      }
    },
    {
      connection,
      concurrency: Math.max(1, options.concurrency ?? 1),
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: Math.max(1_000, Math.floor((options.lockDurationMs ?? 30_000) / 2)),
      maxStalledCount: 2,
      ...(options.maxPerMinute !== undefined && { limiter: { max: options.maxPerMinute, duration: 60_000 } }),
    },
  );
  worker.on("error", () => {
    // Connection trouble is retried by the client; jobs are not affected.
  });

  const closed = new Promise<void>((resolve) => {
    // Running tasks are finished first; a worker that is killed instead leaves them to the others.
    const stop = async () => {
      await worker.close();
      await queue.close();
      resolve();
    };
    options.signal?.addEventListener("abort", () => void stop(), { once: true });
    if (options.exitWhenIdle) {
      const poll = setInterval(async () => {
        const counts = await queue
          .getJobCounts("waiting", "active", "delayed", "prioritized")
          .catch(() => undefined);
        if (counts && Object.values(counts).every((n) => n === 0)) {
          clearInterval(poll);
          await stop();
        }
      }, 500);
    }
  });
  await closed;
  return { attempts };
}
