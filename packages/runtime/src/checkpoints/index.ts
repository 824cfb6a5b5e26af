export {
  type Checkpoint,
  type CheckpointDiff,
  type CheckpointFileChange,
  type CheckpointGroup,
  type CheckpointManager,
  type CheckpointManagerOptions,
  createCheckpointManager,
  type SnapshotOptions,
} from "./checkpoint-manager.js";
export { CheckpointGitError } from "./git-runner.js";
export { CheckpointsUnavailableError, unavailableCheckpoints } from "./unavailable.js";
