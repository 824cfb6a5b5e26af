export type { SshConnectionOptions } from "./connection.js";
export { HostKeyError, RemoteConnectionError } from "./errors.js";
export { SshExecutionEnvironment, type SshExecutionEnvironmentOptions } from "./ssh-environment.js";
export { resolveSshTarget, type SshTarget, SshTargetError } from "./ssh-target.js";
