export { QueryControlError, QueryError, QueryOptionError } from "./errors.js";
export { QueryStartError, query } from "./query.js";
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
