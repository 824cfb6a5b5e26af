// No module here imports the MCP SDK at load time (see sdk.ts).
export {
  elicitationFields,
  type McpElicitationField,
  type McpElicitationRequest,
  type McpElicitationResult,
  McpRequestRefused,
  type McpSamplingRequest,
  type McpSamplingResult,
  sampleWithModel,
  samplingModelRequest,
  samplingResult,
} from "./client-requests.js";
export { McpConfigError, McpConnectError, McpError } from "./errors.js";
export { MCP_DEFAULTS, McpManager, type McpSessionTarget } from "./manager.js";
export { MAX_TOOL_NAME_LENGTH, MCP_PREFIX, mcpServerOfName, mcpToolName, sanitizeNamePart } from "./names.js";
export {
  fileAuthStorage,
  loginMcpServer,
  McpAuthError,
  type McpAuthState,
  type McpAuthStorage,
  McpOAuthProvider,
  type McpOAuthProviderOptions,
} from "./oauth.js";
export type { McpProcessStarter } from "./process-transport.js";
export {
  callResultToOutput,
  type McpCallResult,
  type McpContent,
  type McpResourceContents,
} from "./results.js";
export { fileToolCache, type McpCachedServer, type McpToolCache, serverCacheKey } from "./tool-cache.js";
export { LIST_MCP_RESOURCES, READ_MCP_RESOURCE } from "./tools.js";
export type * from "./types.js";
