export type { McpRunOptions } from "../mcp/run-options.js";
export type { SkippedMcpServer } from "../mcp/servers.js";
export { summarizeCall } from "./call-summary.js";
export { addCosts, type CostTracker, contextShare, createCostTracker, historyCost } from "./cost.js";
export { ConfigurationError, NoProviderError, RewindError, SessionSelectionError } from "./errors.js";
export { createHistoryRecorder, type EntryRef, type HistoryRecorder } from "./history-recorder.js";
export { createModelClient } from "./model-client.js";
export { createProfile, type ToolMode } from "./profile.js";
export {
  isProviderName,
  KEY_VARIABLES,
  type ModelChoice,
  type ModelRequest,
  noProviderMessage,
  PROVIDERS,
  type ProviderName,
  resolveModelChoice,
} from "./provider-choice.js";
export { planRewindTargets } from "./rewind-targets.js";
export {
  createRuntime,
  type ProjectTrustRequest,
  type RuntimeClient,
  type RuntimeOptions,
} from "./runtime.js";
export { restoreHistory, todosFromHistory } from "./stored-history.js";
export {
  loadSession,
  readStoredSession,
  type StoredGrant,
  type StoredSession,
  selectStoredSession,
} from "./stored-session.js";
export { createToolGuard, mayChangeFiles } from "./tool-guard.js";
export type {
  AskUserQuestion,
  ConversationRewind,
  CostSummary,
  RetryWait,
  RewindTarget,
  Runtime,
  RuntimeMcp,
  RuntimeNotice,
  RuntimeUi,
  RuntimeUpdate,
  TodoItem,
  UserCommandResult,
  UserMessageInput,
} from "./types.js";
export { updateItem } from "./types.js";
export { MENTIONS_NOTE, shellContextBlock, typedText } from "./user-context.js";
