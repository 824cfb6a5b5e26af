// The public API: Session and its contracts, profiles, execution environments, tool factories,
// customization, MCP and code intelligence. Everything else the modules export is reachable
// through `@attractor/agent/internals`, without a stability promise.

// TypeBox's schema builder, for defineTool() parameters: the same copy the tools are typed with,
// without a dependency of the embedder's own.
export { type Static, Type } from "@sinclair/typebox";
export {
  CLAUDE_CODE_TOOL_NAMES,
  claudeCodeNamesOf,
  toolNamesFor,
  withClaudeCodeFields,
} from "./customization/claude-code-names.js";
export { type MarkdownDocument, parseMarkdownDocument } from "./customization/frontmatter.js";
export {
  type DefinitionProblem,
  type FolderScan,
  type MarkdownFile,
  readMarkdownFolder,
} from "./customization/markdown-folder.js";
export { createSkillTool, loadSkills, type SkillFiles } from "./customization/skills.js";
export { loadSubagentTypes } from "./customization/subagent-types.js";
export {
  CODE_RUNNING_FILES,
  type CodeRunningFile,
  type CodeRunningTrigger,
  codeRunningFile,
  isCodeRunningFile,
} from "./environment/code-running-files.js";
export { confinedEnvironment } from "./environment/confined.js";
export {
  ContainerExecutionEnvironment,
  type ContainerExecutionEnvironmentOptions,
  type ContainerTarget,
} from "./environment/container.js";
export {
  CommandError,
  EnvironmentError,
  FileNotFoundError,
  InvalidPatternError,
  IsADirectoryError,
  NotADirectoryError,
  PathOutsideRootError,
  PermissionDeniedError,
  ProcessDataError,
  ReadOnlyError,
  RipgrepMissingError,
  SymlinkOutsideProjectError,
} from "./environment/errors.js";
export {
  type EnvironmentPrimitives,
  environmentFromPrimitives,
  type PrimitiveDirent,
  type PrimitiveExecOptions,
  type PrimitiveExecResult,
} from "./environment/from-primitives.js";
export {
  type LaunchPlan,
  LocalExecutionEnvironment,
  type LocalExecutionEnvironmentOptions,
  type PreparedCommand,
} from "./environment/local.js";
export { type EnvironmentLogEntry, loggingEnvironment } from "./environment/logging.js";
export { absolutePath, programOnPath } from "./environment/program-on-path.js";
export { readOnlyEnvironment } from "./environment/read-only.js";
export { ripgrepCommand } from "./environment/ripgrep-binary.js";
export { type BwrapLayout, bwrapArguments } from "./environment/sandbox/bwrap-args.js";
export { type BubblewrapStatus, probeBubblewrap } from "./environment/sandbox/bwrap-probe.js";
export {
  createSandboxPolicy,
  type SandboxMode,
  type SandboxPolicy,
  type SandboxPolicyOptions,
} from "./environment/sandbox/policy.js";
export { seatbeltProfile } from "./environment/sandbox/seatbelt.js";
export {
  type SandboxAvailability,
  type SandboxEscapeAnswer,
  type SandboxEscapeRequest,
  SandboxedExecutionEnvironment,
  type SandboxedExecutionEnvironmentOptions,
  type SandboxOptions,
} from "./environment/sandboxed.js";
export {
  isSecretName,
  isSecretVariable,
  REDACTED,
  redactSecrets,
  secretValues,
} from "./environment/secrets.js";
export { HostKeyError, RemoteConnectionError } from "./environment/ssh/errors.js";
export {
  SshExecutionEnvironment,
  type SshExecutionEnvironmentOptions,
} from "./environment/ssh/ssh-environment.js";
export { resolveSshTarget, type SshTarget, SshTargetError } from "./environment/ssh/ssh-target.js";
export { CodeIntelligence, type CodeIntelligenceOptions } from "./lsp/code-intelligence.js";
export {
  CODE_INTELLIGENCE_TOOL_NAMES,
  type CodeIntelligenceArgs,
  type CodeIntelligenceToolName,
  codeIntelligenceTitle,
} from "./lsp/definitions.js";
export { type PositionQuery, resolvePosition, type ZeroBasedPosition } from "./lsp/position.js";
export type { LanguageServerConfig } from "./lsp/servers.js";
export {
  type McpElicitationField,
  type McpElicitationRequest,
  type McpElicitationResult,
  McpRequestRefused,
  type McpSamplingRequest,
  type McpSamplingResult,
  sampleWithModel,
} from "./mcp/client-requests.js";
export { MCP_DEFAULTS, McpManager, type McpSessionTarget } from "./mcp/manager.js";
export {
  fileAuthStorage,
  loginMcpServer,
  McpAuthError,
  type McpAuthState,
  type McpAuthStorage,
  McpOAuthProvider,
  type McpOAuthProviderOptions,
} from "./mcp/oauth.js";
export { fileToolCache, type McpCachedServer, type McpToolCache } from "./mcp/tool-cache.js";
export type {
  McpHostedServerConfig,
  McpManagerOptions,
  McpPromptInfo,
  McpRemoteServerConfig,
  McpServerConfig,
  McpServerSnapshot,
} from "./mcp/types.js";
export { READ_ONLY_DEFAULT_MAX_TOOL_ROUNDS } from "./modes/read-only.js";
export { createAnthropicProfile } from "./profiles/anthropic/index.js";
export { createGeminiProfile } from "./profiles/gemini/index.js";
export { createOpenAIProfile } from "./profiles/openai/index.js";
export { createOpenAICompatibleProfile } from "./profiles/openai-compatible/index.js";
export type { ToolFactories } from "./profiles/toolset.js";
export { promptedToolInstructions } from "./prompted/instructions.js";
export { type BalancedJson, type LooseJson, parseLooseJson } from "./prompted/json-repair.js";
export {
  type CallBlock,
  findCallBlocks,
  meantAsCall,
  type ParseOptions,
  type PromptedParseIssue,
  type PromptedParseResult,
  type PromptedToolCall,
  parseToolCalls,
  stripToolCalls,
} from "./prompted/parser.js";
export { type SplitPiece, type SplitTag, TaggedStreamSplitter } from "./prompted/stream-splitter.js";
export { applyTextProtocol, type TextProtocol } from "./prompted/text-protocol.js";
export { codeNavigationGuidance } from "./prompts/code-navigation.js";
export { createNestedDocs } from "./prompts/nested-docs.js";
export { classifyFinish, type FinishAction } from "./session/finish-reason.js";
export {
  type ModelClient,
  NothingToContinueError,
  Session,
  SessionClosedError,
  type SessionInput,
  type SessionOptions,
} from "./session/session.js";
export { scopeEnvironment } from "./subagent/scoped-environment.js";
export { applyPatch, type PatchFileChange, type PatchResult, planPatch } from "./tools/apply-patch/apply.js";
export { parsePatch, patchPaths } from "./tools/apply-patch/parser.js";
export { applyPatchTool } from "./tools/apply-patch/tool.js";
export { MAX_ARGUMENT_DEPTH } from "./tools/argument-depth.js";
export {
  type AskUserArgs,
  type AskUserToolOptions,
  createAskUserTool,
  type UserQuestion,
} from "./tools/ask-user.js";
export { defineTool, StringEnum, type ToolSpec } from "./tools/define-tool.js";
export {
  type CompletedToolCall,
  type DispatchOptions,
  dispatchToolCalls,
  type ToolCallOutcome,
} from "./tools/dispatch.js";
export {
  applyEdit,
  EDIT_STRATEGIES,
  EditError,
  type EditErrorCode,
  type EditOptions,
  type EditResult,
} from "./tools/edit/apply-edit.js";
export { type EditStrategy, STRATEGY_NAMES } from "./tools/edit/edit-types.js";
export { omissionPlaceholders } from "./tools/edit/placeholders.js";
export { type EditFileArgs, type EditFileToolOptions, editFileTool } from "./tools/edit-file.js";
export { globTool } from "./tools/glob.js";
export { type GrepToolOptions, grepTool } from "./tools/grep.js";
export { listDirTool } from "./tools/list-dir.js";
export {
  isNotebookPath,
  NotebookFormatError,
  notebookEditTool,
  readNotebook,
} from "./tools/notebook/index.js";
export {
  DEFAULT_PDF_PAGES,
  extractPdfText,
  PDF_DOCUMENT_MAX_BYTES,
  PDF_DOCUMENT_MAX_PAGES,
  type PdfPageText,
  type PdfText,
  readPdfText,
} from "./tools/pdf/index.js";
export {
  BackgroundProcesses,
  backgroundProcessTools,
  shellInputTool,
  shellKillTool,
  shellOutputTool,
} from "./tools/processes/index.js";
export { type ReadFileArgs, readFileTool } from "./tools/read-file.js";
export { type ReadManyFilesArgs, readManyFilesTool } from "./tools/read-many-files.js";
export { ToolRegistry } from "./tools/registry.js";
export { validateArguments } from "./tools/schema.js";
export { ArgumentError, ToolError } from "./tools/shared/tool-errors.js";
export { type ShellToolOptions, shellTool } from "./tools/shell.js";
export {
  createTodoTool,
  type TodoItem,
  type TodoStatus,
  type TodoTool,
  type TodoToolOptions,
} from "./tools/todo.js";
export {
  checkRegisteredTool,
  ToolDefinitionError,
  type ToolShapeField,
  toLlmTool,
  toRegisteredTool,
} from "./tools/tool-shape.js";
export {
  createWebFetchTool,
  modelPageAnswerer,
  type NonPublicKind,
  type NonPublicTarget,
  nonPublicKind,
  type PageAnswerer,
  type PageQuestion,
  type PdfReader,
  WebFetchError,
  type WebFetchToolOptions,
} from "./tools/web-fetch/index.js";
export {
  type AnswerSegment,
  createProviderWebSearchTool,
  createWebSearchTool,
  type ModelWebSearcherOptions,
  modelWebSearcher,
  type NumberedSource,
  PROVIDERS_WITH_WEB_SEARCH,
  type ProviderWebSearchToolOptions,
  providerRunsWebSearch,
  type SearxngSearcherOptions,
  searxngWebSearcher,
  WEB_SEARCH_TOOL,
  type WebSearcher,
  type WebSearchFindings,
  type WebSearchQuery,
  type WebSearchReport,
  type WebSearchSource,
  type WebSearchToolOptions,
  webSearchReport,
  webSearchReportText,
} from "./tools/web-search/index.js";
export { type WriteFileArgs, writeFileTool } from "./tools/write-file.js";
export {
  DEFAULT_TOOL_LIMITS,
  type ToolOutputLimit,
  type TruncationConfig,
  type TruncationMode,
} from "./truncation/limits.js";
export { truncateToolOutput } from "./truncation/truncate.js";
export type {
  BackgroundProcessInfo,
  BackgroundProcessTable,
  BackgroundRead,
  BackgroundStartOptions,
} from "./types/background-process.js";
export {
  type AfterToolCallHook,
  type BeforeToolCallDecision,
  type BeforeToolCallHook,
  DEFAULT_MAX_TOOL_ROUNDS_PER_INPUT,
  DEFAULT_SESSION_CONFIG,
  type ReadOnlyMode,
  type SessionConfig,
  type ToolCallInfo,
  type ToolCallResult,
} from "./types/config.js";
export type { Skill, SubagentType } from "./types/customization.js";
export type {
  DirEntry,
  ExecOptions,
  ExecResult,
  ExecutionEnvironment,
  FileStat,
  GlobOptions,
  GlobResult,
  GrepMatch,
  GrepOptions,
  GrepOutputMode,
  GrepResult,
  LongLivedProcess,
  ReadFileOptions,
  SandboxBlock,
  SandboxBlockKind,
  StartProcessOptions,
} from "./types/environment.js";
export {
  type EventDataMap,
  EventKind,
  type SessionEvent,
  type SessionEventOf,
  type UsageTotals,
} from "./types/events.js";
export {
  HOOK_EVENTS,
  type HookEventName,
  type PostToolUseOutcome,
  type SessionHooks,
  type SessionStartSource,
  type StopDecision,
  type StopHookInput,
  type UserPromptDecision,
} from "./types/hooks.js";
export type {
  ProfileToolRegistry,
  ProviderProfile,
  SystemPromptContext,
  ToolCallMode,
} from "./types/profile.js";
export { SessionState, type SubagentResult, SubagentStatus } from "./types/session.js";
export type {
  AnyTool,
  RegisteredTool,
  ToolCallContext,
  ToolContext,
  ToolDetails,
  ToolExecutor,
  ToolOutput,
} from "./types/tool.js";
export type {
  AssistantTurn,
  SteeringTurn,
  SummaryTurn,
  SystemTurn,
  ToolResultRecord,
  ToolResultsTurn,
  Turn,
  TurnKind,
  UserTurn,
} from "./types/turn.js";
