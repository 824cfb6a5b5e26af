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
  } as const;
}
