export {
  type ApprovalDecision,
  type ApprovalState,
  approvalsPath,
  entryHash,
  forgetApprovals,
  projectApprovals,
  recordApprovals,
} from "./approval.js";
export { loginHint, mcpAuthFile, mcpAuthOptions } from "./auth.js";
export { elicitationHandler, type McpSamplingSetting, samplingHandler } from "./client-requests.js";
export { McpConfigFileError, parseMcpJson, serverConfig } from "./config-file.js";
export { expandVariables } from "./expand.js";
export { type McpRunOptions, mcpRunOptions } from "./run-options.js";
export {
  describeServer,
  type McpOrigin,
  type McpSelection,
  type PendingMcpServer,
  projectMcpPath,
  type SkippedMcpServer,
  selectMcpServers,
  settlePending,
} from "./servers.js";
