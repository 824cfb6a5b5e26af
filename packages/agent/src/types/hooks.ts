import type { BeforeToolCallHook, ToolCallInfo } from "./config.js";
import type { ToolOutput } from "./tool.js";

/** The nine lifecycle events a host can hook, named as Claude Code names them. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Any hook may stop the running cycle: the session ends the cycle and shows `halt` to the host. */
interface Halting {
  /** When set, the cycle stops after this hook; the text is for the user, not the model. */
  readonly halt?: string;
}

/** What a postToolUse hook does with a finished call. */
export interface PostToolUseOutcome extends Halting {
  /** Replaces the tool's result. */
  readonly result?: ToolOutput;
  /** Told to the model after the tool's output (a "block" reason, extra context). */
  readonly feedback?: string;
}

/** What a userPromptSubmit hook decides about an input. */
export type UserPromptDecision =
  | ({ readonly action: "allow"; readonly additionalContext?: string } & Halting)
  /** The input is not processed; `reason` is shown to the host (warning code "hook"). */
  | ({ readonly action: "block"; readonly reason: string } & Halting);

/** What a stop or subagentStop hook decides when the model has finished answering. */
export type StopDecision =
  | ({ readonly action: "allow" } & Halting)
  /** The model is told `reason` and goes on working. */
  | ({ readonly action: "continue"; readonly reason: string } & Halting);

/** Why a session starts: a new one, a stored one resumed, after a clear, after a compaction. */
export type SessionStartSource = "startup" | "resume" | "clear" | "compact";

/** Input of the stop hooks. */
export interface StopHookInput {
  /** True when the model is already continuing because a stop hook asked it to. */
  readonly stopHookActive: boolean;
  /** The model's final answer. */
  readonly lastMessage: string;
}

/**
 * Host callbacks for the session's lifecycle, the same events a Claude Code settings file hooks.
 * Every callback may be async; one that throws or rejects is reported as a WARNING event (code
 * "hook") and ignored, except preToolUse, whose failure refuses the call (fail-closed).
 */
export interface SessionHooks {
  /** Between validation and execution; deny or rewrite a call (undefined = allow). */
  readonly preToolUse?: BeforeToolCallHook;
  /** After execution, before truncation. */
  readonly postToolUse?: (
    call: ToolCallInfo,
    result: ToolOutput,
  ) => PostToolUseOutcome | undefined | Promise<PostToolUseOutcome | undefined>;
  /** Before an input reaches the model; may block it or add context beside it. */
  readonly userPromptSubmit?: (input: {
    readonly prompt: string;
  }) => UserPromptDecision | undefined | Promise<UserPromptDecision | undefined>;
  /** When a top-level session's model answers without tool calls; may make it continue. */
  readonly stop?: (input: StopHookInput) => StopDecision | undefined | Promise<StopDecision | undefined>;
  /** The same for a subagent (a session at depth 1 or more). */
  readonly subagentStop?: (
    input: StopHookInput & { readonly agentId: string },
  ) => StopDecision | undefined | Promise<StopDecision | undefined>;
  /** Before the session's first model call; returned context is given to the model. */
  readonly sessionStart?: (input: {
    readonly source: SessionStartSource;
  }) =>
    | { readonly additionalContext?: string }
    | undefined
    | Promise<{ readonly additionalContext?: string } | undefined>;
  /** When the session closes, before SESSION_END. */
  readonly sessionEnd?: (input: { readonly reason: "closed" | "aborted" | "error" }) => unknown;
  /** Before the history is compacted. */
  readonly preCompact?: (input: { readonly trigger: "manual" | "auto"; readonly focus?: string }) => unknown;
  /** When the host tells the session that the user's attention is needed (Session.notify). */
  readonly notification?: (input: { readonly message: string }) => unknown;
}
