import type { HookEventName } from "@attractor/agent";
import type { PermissionMode } from "../permissions/index.js";
import type { RuntimeClient } from "../runtime/index.js";
import type { ClaudeStreamLine } from "./claude-stream.js";
import type { HeadlessResult } from "./run-result.js";
import type { McpSdkServerConfig } from "./sdk-mcp.js";

/** The Claude Agent SDK's permission modes; ours (`normal`, `auto-edit`, `yolo`, `plan`) too. */
export type QueryPermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions" | PermissionMode;

/** What a permission callback answers (the Claude Agent SDK's PermissionResult). */
export type PermissionResult =
  | {
      readonly behavior: "allow";
      /** The arguments the call runs with instead of the model's. */
      readonly updatedInput?: Readonly<Record<string, unknown>>;
      /** Given back from `suggestions`: the call's rules are allowed for the rest of the session. */
      readonly updatedPermissions?: readonly PermissionUpdate[];
    }
  | {
      readonly behavior: "deny";
      /** What the model is told. */
      readonly message: string;
      /** Also stop the run. */
      readonly interrupt?: boolean;
    };

/** A rule the caller may allow for the session (the Claude Agent SDK's `addRules` update). */
export interface PermissionUpdate {
  readonly type: "addRules";
  readonly rules: readonly { readonly toolName: string; readonly ruleContent?: string }[];
  readonly behavior: "allow";
  readonly destination: "session";
}

/**
 * Decides a tool call the permission policy would ask about. `toolName` and `input` use Claude
 * Code's names where one exists (`Bash`, `command`); what it does not answer, or a throw, denies.
 */
export type CanUseTool = (
  toolName: string,
  input: Readonly<Record<string, unknown>>,
  options: {
    readonly signal: AbortSignal;
    /** The rules "always allow" would add for this call. */
    readonly suggestions: readonly PermissionUpdate[];
    readonly toolUseID: string;
    /** attractor's own: why the policy asks, and the tool's name in attractor. */
    readonly reason: string;
    readonly attractorToolName: string;
  },
) => Promise<PermissionResult>;

/** What a function hook returns: the JSON a command hook prints (Claude Code's fields). */
export interface HookJSONOutput {
  readonly continue?: boolean;
  readonly stopReason?: string;
  readonly suppressOutput?: boolean;
  readonly systemMessage?: string;
  readonly decision?: "approve" | "block";
  readonly reason?: string;
  readonly hookSpecificOutput?: {
    readonly hookEventName: string;
    readonly permissionDecision?: "allow" | "deny" | "ask";
    readonly permissionDecisionReason?: string;
    readonly updatedInput?: Readonly<Record<string, unknown>>;
    readonly additionalContext?: string;
  };
}

/**
 * A function hook: gets the event's input (`hook_event_name`, `session_id`, `cwd`, `tool_name`,
 * `tool_input`…, as a command hook reads it), the tool call's id, and a signal aborted at its timeout.
 */
export type HookCallback = (
  input: Readonly<Record<string, unknown>>,
  toolUseID: string | undefined,
  options: { readonly signal: AbortSignal },
) => Promise<HookJSONOutput>;

/** Function hooks for an event; `matcher` as in settings (a tool-name regex for tool events). */
export interface HookCallbackMatcher {
  readonly matcher?: string;
  readonly hooks: readonly HookCallback[];
  /** Seconds each hook may take (default 60). */
  readonly timeout?: number;
}

/** A named subagent the model may start (the Claude Agent SDK's AgentDefinition). */
export interface AgentDefinition {
  readonly description: string;
  readonly prompt: string;
  /** Tools it may use (ours or Claude Code's names); all the parent's when absent. */
  readonly tools?: readonly string[];
  /** A model id, or "inherit"; the parent's when absent. */
  readonly model?: string;
}

/** An MCP server to connect to: a command, a remote URL, or a server in this process. */
export type McpServerConfig =
  | {
      readonly type?: "stdio";
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
    }
  | {
      readonly type: "http" | "sse";
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | McpSdkServerConfig;

/** A JSON Schema object. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** A user message of streaming input (the Claude Agent SDK's SDKUserMessage, text content). */
export interface SDKUserMessageInput {
  readonly type: "user";
  readonly message: {
    readonly role: "user";
    readonly content: string | readonly { readonly type: string; readonly text?: string }[];
  };
  readonly parent_tool_use_id?: string | null;
  readonly session_id?: string;
}

/** Everything query() takes; every field is optional. */
export interface QueryOptions {
  /** The project directory (default: the process's working directory). */
  readonly cwd?: string;
  readonly model?: string;
  /** anthropic, openai, gemini or openai-compatible; from the model or the environment otherwise. */
  readonly provider?: string;
  readonly baseUrl?: string;
  /** A model client to use instead of one made for the provider (tests, proxies, embedders). */
  readonly client?: RuntimeClient;
  /**
   * Replaces the agent's instructions (a string or strings joined), or `{ type: "preset",
   * preset: "claude_code", append }` keeps them and appends.
   */
  readonly systemPrompt?:
    | string
    | readonly string[]
    | { readonly type: "preset"; readonly preset?: string; readonly append?: string };
  readonly permissionMode?: QueryPermissionMode;
  /** Allow rules (Claude Code's syntax: `Read`, `Bash(npm test:*)`; our tool names too). */
  readonly allowedTools?: readonly string[];
  /** Deny rules, same syntax. */
  readonly disallowedTools?: readonly string[];
  readonly canUseTool?: CanUseTool;
  readonly hooks?: Partial<Record<HookEventName, readonly HookCallbackMatcher[]>>;
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  readonly agents?: Readonly<Record<string, AgentDefinition>>;
  /** The final answer must be JSON valid against this schema; the result carries it as `structured_output`. */
  readonly outputSchema?: JsonSchema;
  /** The Claude Agent SDK's spelling of `outputSchema`. */
  readonly outputFormat?: { readonly type: "json_schema"; readonly schema: JsonSchema };
  /** Model responses allowed per user message; unlimited when absent or 0. */
  readonly maxTurns?: number;
  /** Wall-clock limit of the whole query, in milliseconds. */
  readonly maxDurationMs?: number;
  /** Continue this stored session (same id). */
  readonly resume?: string;
  /** With `resume`: continue a copy of it under a new id. */
  readonly forkSession?: boolean;
  /** Continue the project's most recent session. */
  readonly continue?: boolean;
  /** Store the session so it can be resumed (default true). */
  readonly persistSession?: boolean;
  readonly abortController?: AbortController;
  /** The run's environment (keys, the shell's variables); process.env by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Which settings files to read: none by default, as the Claude Agent SDK. */
  readonly settingSources?: readonly ("user" | "project" | "local")[];
  /** Also yield `stream_event` messages while the model answers. */
  readonly includePartialMessages?: boolean;
  /** Directories the tools may use besides `cwd`. */
  readonly additionalDirectories?: readonly string[];
}

/** The run's first message. */
export type SDKSystemMessage = Extract<ClaudeStreamLine, { type: "system"; subtype: "init" }>;
/** A model response: text, thinking and tool_use blocks. */
export type SDKAssistantMessage = Extract<ClaudeStreamLine, { type: "assistant" }>;
/** A tool's result, as a user message with a tool_result block. */
export type SDKUserMessage = Extract<ClaudeStreamLine, { type: "user" }>;
/** attractor's own: a warning, notice or error the run reported. */
export type SDKNoticeMessage = Extract<
  ClaudeStreamLine,
  { type: "system"; subtype: "warning" | "notice" | "error" }
>;

/** A piece of a response as it streams (`includePartialMessages`), as Anthropic's stream events. */
export interface SDKPartialAssistantMessage {
  readonly type: "stream_event";
  readonly event:
    | { readonly type: "message_start" }
    | {
        readonly type: "content_block_delta";
        readonly index: number;
        readonly delta:
          | { readonly type: "text_delta"; readonly text: string }
          | { readonly type: "thinking_delta"; readonly thinking: string };
      }
    | { readonly type: "message_stop" };
  readonly parent_tool_use_id: null;
  readonly uuid: string;
  readonly session_id: string;
}

/**
 * The result of each user message: the Claude Agent SDK's fields (`subtype`, `is_error`,
 * `result`, `num_turns`, `total_cost_usd`, `usage`, `structured_output`, `errors`…) and attractor's.
 */
export type SDKResultMessage = Omit<HeadlessResult, "subtype" | "exit_reason"> & {
  readonly subtype: HeadlessResult["subtype"] | "error_max_structured_output_retries";
  /** attractor's own: completed, turn_limit, error, aborted, time_limit, invalid_output. */
  readonly exit_reason: HeadlessResult["exit_reason"] | "time_limit" | "invalid_output";
  /** The final answer parsed and valid against the output schema (success only). */
  readonly structured_output?: unknown;
  /** What went wrong, for error results; empty on success. */
  readonly errors: readonly string[];
};

export type SDKMessage =
  | SDKSystemMessage
  | SDKAssistantMessage
  | SDKUserMessage
  | SDKNoticeMessage
  | SDKPartialAssistantMessage
  | SDKResultMessage;

/** A running query: the messages as an async generator, and its controls. */
export interface Query extends AsyncGenerator<SDKMessage, void> {
  /** Stops the running turn; the result of the current message is an error_during_execution. */
  interrupt(): Promise<void>;
  setPermissionMode(mode: QueryPermissionMode): Promise<void>;
  setModel(model: string): Promise<void>;
}
