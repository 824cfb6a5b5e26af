import type { CheckpointManager } from "./checkpoint-manager.js";

/** Checkpoints cannot be taken where the project is (a remote host). */
export class CheckpointsUnavailableError extends Error {
  override readonly name = "CheckpointsUnavailableError";
}

/**
 * The checkpoint manager of a project attractor cannot snapshot (its files are on a remote
 * host): nothing is snapshotted, and asking to undo or restore says why.
 */
export function unavailableCheckpoints(reason: string): CheckpointManager {
  const refuse = () => Promise.reject(new CheckpointsUnavailableError(reason));
  return {
    gitDir: "",
    prepare: async () => {},
    snapshot: refuse,
    snapshotFiles: refuse,
    snapshotStaged: refuse,
    flush: async () => {},
    changeMade: () => {},
    checkpoints: async () => [],
    list: async () => [],
    diff: refuse,
    restore: refuse,
    undo: refuse,
  };
}
