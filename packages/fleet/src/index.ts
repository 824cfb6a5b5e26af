export { DEFAULT_QUEUE, DEFAULT_REDIS_URL, type FleetConnection, redisUrl } from "./connection.js";
export { type FleetStatus, fleetStatus, readResults, readTranscript, type TaskResult } from "./results.js";
export { type AttractorCommand, runTask, type TaskOutcome } from "./run-task.js";
export { type SubmitOptions, submitTasks } from "./submit.js";
export { type FleetTask, parseTasks, type TaskLineError } from "./task.js";
export { runWorker, type WorkerOptions } from "./worker.js";
export { prepareWorkspace, type Workspace, WorkspaceError, workspacePatch } from "./workspace.js";
