// The Claude-shaped message stream and the run's outcome, shared with the command's headless mode.
export {
  CLAUDE_PERMISSION_MODE,
  type ClaudeContentBlock,
  type ClaudeStreamLine,
  createClaudeStream,
  type StreamInit,
  type WebSearchToolResult,
  webSearchToolResult,
} from "./claude-stream.js";
export { QueryControlError, QueryError, QueryOptionError } from "./errors.js";
export {
  type PermissionRuleValue,
  permissionSuggestions,
  readPermissionResult,
  readPermissionUpdates,
} from "./permission-updates.js";
export { QueryStartError, query } from "./query.js";
export { createRunTracker, type ExitReason, type HeadlessResult, type RunTracker } from "./run-result.js";
export {
  type CallToolResult,
  createSdkMcpServer,
  type McpSdkServerConfig,
  type SdkMcpToolDefinition,
  type ToolInputSchema,
  tool,
} from "./sdk-mcp.js";
export type {
  AgentDefinition,
  CanUseTool,
  HookCallback,
  HookCallbackMatcher,
  HookJSONOutput,
  JsonSchema,
  McpServerConfig,
  PermissionResult,
  PermissionUpdate,
  Query,
  QueryOptions,
  QueryPermissionMode,
  SDKAssistantMessage,
  SDKMessage,
  SDKNoticeMessage,
  SDKPartialAssistantMessage,
  SDKResultMessage,
  SDKSystemMessage,
  SDKUserMessage,
  SDKUserMessageInput,
} from "./types.js";
