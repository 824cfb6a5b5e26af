export { type CancelReport, type CancelTarget, cancelTasks } from "./cancel.js";
export { type CleanReport, type CleanTarget, cleanFleet } from "./clean.js";
export {
  DEFAULT_QUEUE,
  DEFAULT_REDIS_URL,
  type FleetConnection,
  RedisConnectionError,
  redisUrl,
} from "./connection.js";
export { redisDurabilityProblems, VolatileRedisError } from "./durability.js";
export { checkPolicy, PolicyRefusal, type WorkerPolicy } from "./policy.js";
export { type StoredResult, storeDir } from "./result-store.js";
export {
  type FleetStatus,
  fleetStatus,
  type ReadOptions,
  readResults,
  readTranscript,
  type TaskResult,
  UnknownRunError,
} from "./results.js";
export type { RunManifest } from "./run.js";
export { type AttractorCommand, runTask, type TaskOutcome } from "./run-task.js";
export { type SubmitOptions, submitTasks } from "./submit.js";
export { type FleetTask, parseTasks, type TaskLineError } from "./task.js";
export {
  type Isolation,
  IsolationUnavailableError,
  type SandboxStatus,
  SetupError,
  type TaskEnvironment,
} from "./task-environment.js";
export { RedisUnreachableError, runWorker, type WorkerOptions } from "./worker.js";
export {
  prepareWorkspace,
  removeStaleWorkspaces,
  type Workspace,
  WorkspaceError,
  workspacePatch,
} from "./workspace.js";
