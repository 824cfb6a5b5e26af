import type { ReasoningEffort } from "@attractor/llm";
import type { Skill, SubagentType } from "./customization.js";
import type { SessionHooks } from "./hooks.js";
import type { RegisteredTool, ToolOutput } from "./tool.js";

/** A tool call as hooks see it: after argument validation, before execution. */
export interface ToolCallInfo {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * The directory the call's relative paths resolve against: the session's working directory
   * (a subagent's may differ from its parent's). Set by the dispatcher.
   */
  readonly workingDirectory?: string;
}

/** What a beforeToolCall hook decides. */
export type BeforeToolCallDecision =
  | { readonly action: "allow" }
  /** The tool does not run; the model gets `message` as an error result. */
  | { readonly action: "deny"; readonly message: string }
  /** The tool runs with these arguments instead (validated again). */
  | { readonly action: "rewrite"; readonly arguments: Readonly<Record<string, unknown>> };

/** @deprecated use ToolOutput (the same result; `isError` is always set when a hook sees it). */
export type ToolCallResult = ToolOutput;

/** Runs between validation and execution; undefined means allow. */
export type BeforeToolCallHook = (
  call: ToolCallInfo,
) => BeforeToolCallDecision | undefined | Promise<BeforeToolCallDecision | undefined>;

/** Runs after execution; a returned result replaces the tool's. */
export type AfterToolCallHook = (
  call: ToolCallInfo,
  result: ToolOutput,
) => ToolOutput | undefined | Promise<ToolOutput | undefined>;

/**
 * A read-only way of working: explore answers questions about the code, plan produces a plan,
 * review reviews the working tree's diff. Only read-only tools are offered (review adds the shell
 * for git read commands) and every other call is refused.
 */
export type ReadOnlyMode = "explore" | "plan" | "review";

/** How a Session behaves; every field has a default (see DEFAULT_SESSION_CONFIG). */
export interface SessionConfig {
  /** Model responses per session; 0 = unlimited. */
  readonly maxTurns: number;
  /**
   * Tool rounds per submitted input; 0 = unlimited. Default DEFAULT_MAX_TOOL_ROUNDS_PER_INPUT
   * (the spec's default is 0): a runaway loop ends with TURN_LIMIT long before it has cost
   * thousands of requests. A read-only mode caps it at 40.
   */
  readonly maxToolRoundsPerInput: number;
  /** Shell timeout when the call gives none; the profile's own default wins when it has one. */
  readonly defaultCommandTimeoutMs: number;
  /** Upper bound for any shell timeout. */
  readonly maxCommandTimeoutMs: number;
  /** Undefined = the provider's default. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Per-tool character limits for the model's copy of tool output. */
  readonly toolOutputLimits: Readonly<Record<string, number>>;
  /** Per-tool line limits, applied after the character limit. */
  readonly toolLineLimits: Readonly<Record<string, number>>;
  readonly enableLoopDetection: boolean;
  /** Tool calls looked at for repeating cycles. */
  readonly loopDetectionWindow: number;
  /**
   * Loop detections within one input after which the cycle ends with an ERROR event (the warning
   * steering did not help); 0 = only warn. Default 3.
   */
  readonly maxLoopDetections?: number;
  /** How deep subagents may nest; 1 = children, no grandchildren. */
  readonly maxSubagentDepth: number;
  /** Fraction of the context window at which a WARNING is emitted. */
  readonly contextWarningThreshold: number;
  /** Appended last to the system prompt. */
  readonly userInstructions?: string;
  /** Instruction files read before the project's AGENTS.md files (e.g. ~/.attractor/AGENTS.md). */
  readonly userInstructionFiles?: readonly string[];
  /**
   * Replaces the profile's base prompt (the agent's own instructions); the environment, tools,
   * project instructions and user instructions are still added around it.
   */
  readonly systemPrompt?: string;
  /** Restricts the tools offered to the model (read-only modes use this); all tools when absent. */
  readonly toolFilter?: (tool: RegisteredTool) => boolean;
  /** Runs after hooks.preToolUse (the host's permission check); deny or rewrite a call. */
  readonly beforeToolCall?: BeforeToolCallHook;
  /** Runs before hooks.postToolUse. */
  readonly afterToolCall?: AfterToolCallHook;
  /** Lifecycle callbacks (tool use, prompts, stop, start/end, compaction, notifications). */
  readonly hooks?: SessionHooks;
  /** Custom subagent types spawn_agent offers (its `subagent_type` argument). */
  readonly subagentTypes?: readonly SubagentType[];
  /** Skills named in the system prompt; register createSkillTool() so the model can load them. */
  readonly skills?: readonly Skill[];
  /** A read-only mode, or undefined for normal work; may change between calls (updateConfig). */
  readonly readOnlyMode?: ReadOnlyMode | undefined;
  /** Compact the history before a model call when context use reaches this fraction of the window. */
  readonly compactionThreshold: number;
  /**
   * Compact automatically (at the threshold, and when the provider reports the context too
   * long); when false, only Session.compact() compacts.
   */
  readonly autoCompact: boolean;
}

/**
 * Tool rounds one input may take unless configured: far above what real tasks use (a long
 * refactor takes some tens), far below the thousands of requests an unattended runaway loop makes.
 */
export const DEFAULT_MAX_TOOL_ROUNDS_PER_INPUT = 200;

/** The spec's defaults, except maxToolRoundsPerInput (DEFAULT_MAX_TOOL_ROUNDS_PER_INPUT, not 0). */
export const DEFAULT_SESSION_CONFIG: SessionConfig = {
  maxTurns: 0,
  maxToolRoundsPerInput: DEFAULT_MAX_TOOL_ROUNDS_PER_INPUT,
  defaultCommandTimeoutMs: 10_000,
  maxCommandTimeoutMs: 600_000,
  toolOutputLimits: {},
  toolLineLimits: {},
  enableLoopDetection: true,
  loopDetectionWindow: 10,
  maxSubagentDepth: 1,
  contextWarningThreshold: 0.8,
  compactionThreshold: 0.8,
  autoCompact: true,
};
