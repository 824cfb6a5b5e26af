/** Redis keys the fleet keeps beside BullMQ's own, all under one prefix per queue. */
export function fleetKeys(queue: string) {
  const base = `attractor-fleet:${queue}`;
  return {
    /** Sorted set of run ids, scored by creation time. */
    runs: `${base}:runs`,
    /** A run's manifest (JSON). */
    run: (id: string) => `${base}:run:${id}`,
    /** Hash: task id → how its last attempt ended (completed, failed, cancelled). */
    outcome: `${base}:outcome`,
    /** Hash: task id → the error of a task that ended failed or cancelled. */
    error: `${base}:error`,
    /** Hash: task id → attempts started, re-runs after a lost worker included. */
    attempts: `${base}:attempts`,
    /** Sorted set: task id scored by when it finished, for the rate. */
    finished: `${base}:finished`,
    /** Set of task ids asked to stop; workers poll it for their running tasks. */
    cancel: `${base}:cancel`,
    /** Hash: a run's total, creation time and counts of its finished tasks by outcome. */
    runCounts: (id: string) => `${base}:run:${id}:counts`,
    /** Set: a run's tasks not finished when last seen. */
    runOpen: (id: string) => `${base}:run:${id}:open`,
    /** Sorted set: a run's failed tasks, scored by when they failed. */
    runFailed: (id: string) => `${base}:run:${id}:failed`,
    /** Hash: task id → the later runs (newline-separated) that listed it while it was still queued. */
    runsOf: `${base}:runs-of`,
  } as const;
}
