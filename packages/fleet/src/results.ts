import { type Job, Queue } from "bullmq";
import { connectionOptions, DEFAULT_QUEUE, type FleetConnection, redisUrl } from "./connection.js";
import type { TaskOutcome } from "./run-task.js";
import type { FleetTask } from "./task.js";

/** One task as `attractor fleet results --json` prints it. */
export interface TaskResult {
  readonly id: string;
  readonly status: "completed" | "failed" | "waiting" | "active" | "delayed";
  /** Attempts made so far. */
  readonly attempts: number;
  readonly result: string | null;
  readonly patch: string | null;
  readonly usage: Record<string, number> | null;
  readonly cost_usd: number | null;
  readonly duration_ms: number | null;
  readonly turns: number | null;
  readonly session_id: string | null;
  readonly error: string | null;
}

/** Progress of a queue, for `attractor fleet status`. */
export interface FleetStatus {
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
  readonly active: number;
  readonly waiting: number;
  readonly delayed: number;
  /** Tasks finished per minute over the last five minutes. */
  readonly perMinute: number;
  /** Estimated seconds until every task has finished; null when nothing finishes yet. */
  readonly etaSeconds: number | null;
  /** The failed tasks and why. */
  readonly failures: readonly { readonly id: string; readonly error: string }[];
}

const STATES = ["completed", "failed", "active", "waiting", "delayed", "prioritized"] as const;

async function withQueue<T>(options: FleetConnection, run: (queue: Queue) => Promise<T>): Promise<T> {
  const queue = new Queue(options.queue ?? DEFAULT_QUEUE, {
    connection: connectionOptions(redisUrl(options)),
  });
  try {
    return await run(queue);
  } finally {
    await queue.close();
  }
}

function toResult(job: Job<FleetTask, TaskOutcome>, state: string): TaskResult {
  const out = job.returnvalue ?? undefined;
  const status = (state === "prioritized" ? "waiting" : state) as TaskResult["status"];
  return {
    id: job.id ?? job.data.id,
    status,
    attempts: job.attemptsMade,
    result: out?.result ?? null,
    patch: out?.patch ?? null,
    usage: out?.usage ?? null,
    cost_usd: out?.cost_usd ?? null,
    duration_ms: out?.duration_ms ?? null,
    turns: out?.turns ?? null,
    session_id: out?.session_id ?? null,
    error: state === "failed" ? (job.failedReason ?? "failed") : null,
  };
}

/** Every task of the queue with its state and, once finished, its result; sorted by id. */
export function readResults(options: FleetConnection = {}): Promise<TaskResult[]> {
  return withQueue(options, async (queue) => {
    const out: TaskResult[] = [];
    for (const state of STATES) {
      const jobs = (await queue.getJobs([state], 0, -1, true)) as Job<FleetTask, TaskOutcome>[];
      for (const job of jobs) if (job) out.push(toResult(job, state));
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  });
}

/** The transcript a finished task stored, by task id. */
export function readTranscript(id: string, options: FleetConnection = {}): Promise<string | undefined> {
  return withQueue(options, async (queue) => {
    const job = (await queue.getJob(id)) as Job<FleetTask, TaskOutcome> | undefined;
    return job?.returnvalue?.transcript;
  });
}

/** Counts, rate, ETA and failures of the queue. */
export function fleetStatus(options: FleetConnection = {}): Promise<FleetStatus> {
  return withQueue(options, async (queue) => {
    const counts = await queue.getJobCounts(...STATES);
    const finished = [
      ...((await queue.getJobs(["completed"], 0, -1)) as Job[]),
      ...((await queue.getJobs(["failed"], 0, -1)) as Job[]),
    ];
    const now = Date.now();
    const window = 5 * 60_000;
    const recent = finished.filter(
      (j) => j?.finishedOn !== undefined && now - (j.finishedOn as number) <= window,
    );
    const first = Math.min(...recent.map((j) => j.processedOn ?? j.finishedOn ?? now), now);
    const minutes = Math.max((now - first) / 60_000, 1 / 60);
    const perMinute = recent.length > 0 ? recent.length / minutes : 0;
    const remaining =
      (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0);
    const failedJobs = (await queue.getJobs(["failed"], 0, -1)) as Job[];
    return {
      total: Object.values(counts).reduce((a, b) => a + b, 0),
      completed: counts.completed ?? 0,
      failed: counts.failed ?? 0,
      active: counts.active ?? 0,
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      delayed: counts.delayed ?? 0,
      perMinute: Math.round(perMinute * 10) / 10,
      etaSeconds: remaining === 0 ? 0 : perMinute > 0 ? Math.round((remaining / perMinute) * 60) : null,
      failures: failedJobs
        .filter(Boolean)
        .map((j) => ({ id: j.id ?? "?", error: j.failedReason ?? "failed" })),
    };
  });
}
