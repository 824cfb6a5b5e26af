export { type CancelReport, type CancelTarget, cancelTasks } from "./cancel.js";
export { type CleanReport, type CleanTarget, cleanFleet } from "./clean.js";
export {
  DEFAULT_QUEUE,
  DEFAULT_REDIS_URL,
  type FleetConnection,
  RedisConnectionError,
  RedisUnreachableError,
  redisUrl,
} from "./connection.js";
export { redisDurabilityProblems, VolatileRedisError } from "./durability.js";
export { checkPolicy, PolicyRefusal, type WorkerPolicy } from "./policy.js";
export {
  KEY_PLACEHOLDER,
  PROXIED_PROVIDERS,
  ProviderLimitError,
  type ProviderProxy,
  type ProviderProxyOptions,
  type ProxiedAnswer,
  startProviderProxy,
} from "./provider-proxy.js";
export {
  branchName,
  githubRepository,
  PublishError,
  type Published,
  publishChanges,
  type TaskOutput,
} from "./publish.js";
export { LIMIT_WINDOW_MS, type ProviderLimit, windowUse } from "./rate-window.js";
export { type StoredResult, storeDir } from "./result-store.js";
export { readResults, type TaskResult } from "./results.js";
export { type RunManifest, UnknownRunError } from "./run.js";
export type { ReadOptions } from "./run-states.js";
export { type AttractorCommand, runTask, type TaskOutcome } from "./run-task.js";
export { type FleetStatus, fleetStatus, readTranscript } from "./status.js";
export { type SubmitOptions, submitTasks } from "./submit.js";
export { type FleetTask, parseTasks, type TaskLineError } from "./task.js";
export { type ContainerSpec, ContainerUnavailableError } from "./task-container.js";
export {
  type Isolation,
  IsolationUnavailableError,
  type SandboxStatus,
  SetupError,
  type TaskEnvironment,
} from "./task-environment.js";
export { runWorker, type WorkerOptions } from "./worker.js";
export {
  prepareWorkspace,
  removeStaleWorkspaces,
  type Workspace,
  WorkspaceError,
  workspacePatch,
} from "./workspace.js";
