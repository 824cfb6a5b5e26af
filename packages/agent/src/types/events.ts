import type { Citation, Usage, WebSearchData } from "@attractor/llm";
import type { SessionState } from "./session.js";
import type { ToolDetails } from "./tool.js";

/**
 * The kinds of event a Session emits: the spec's fifteen, the two of context compaction,
 * forwarded subagent events and the retry of a model call.
 */
export const EventKind = {
  SESSION_START: "session_start",
  SESSION_END: "session_end",
  USER_INPUT: "user_input",
  PROCESSING_END: "processing_end",
  ASSISTANT_TEXT_START: "assistant_text_start",
  ASSISTANT_TEXT_DELTA: "assistant_text_delta",
  ASSISTANT_TEXT_END: "assistant_text_end",
  TOOL_CALL_START: "tool_call_start",
  TOOL_CALL_OUTPUT_DELTA: "tool_call_output_delta",
  TOOL_CALL_END: "tool_call_end",
  STEERING_INJECTED: "steering_injected",
  TURN_LIMIT: "turn_limit",
  LOOP_DETECTION: "loop_detection",
  WARNING: "warning",
  ERROR: "error",
  COMPACTION_START: "compaction_start",
  COMPACTION_END: "compaction_end",
  SUBAGENT_EVENT: "subagent_event",
  RETRY: "retry",
} as const;

export type EventKind = (typeof EventKind)[keyof typeof EventKind];

/** Usage without the provider's raw payload, so events stay small and serialisable. */
export type UsageTotals = Omit<Usage, "raw">;

/** The typed data each event kind carries; every field is JSON-serialisable. */
export interface EventDataMap {
  session_start: {
    readonly state: SessionState;
    readonly provider: string;
    readonly model: string;
    readonly workingDirectory: string;
    /** 0 for a top-level session, 1 for a subagent… */
    readonly depth: number;
    /** Number of turns restored from stored history. */
    readonly restoredTurns: number;
  };
  session_end: {
    readonly state: SessionState;
    readonly reason: "closed" | "aborted" | "error";
    readonly usage: UsageTotals;
    readonly turns: number;
  };
  user_input: { readonly content: string; readonly followUp: boolean };
  processing_end: {
    readonly state: SessionState;
    /** Why the cycle ended. */
    readonly reason: "completed" | "awaiting_input" | "turn_limit" | "aborted" | "error";
    readonly toolRounds: number;
    readonly usage: UsageTotals;
  };
  assistant_text_start: { readonly model: string };
  assistant_text_delta: {
    readonly delta: string;
    /** "reasoning" for thinking text, which is not part of the answer. */
    readonly channel: "text" | "reasoning";
  };
  assistant_text_end: {
    readonly text: string;
    readonly reasoning?: string;
    readonly toolCalls: readonly { readonly id: string; readonly name: string }[];
    readonly finishReason: string;
    readonly usage: UsageTotals;
    readonly responseId?: string;
    /** The web searches the provider ran for this response (the web_search tool), without `raw`. */
    readonly webSearches?: readonly Omit<WebSearchData, "raw">[];
    /** The sources the answer cites, in order, without the provider's `raw` object. */
    readonly citations?: readonly Omit<Citation, "raw">[];
  };
  tool_call_start: {
    readonly toolName: string;
    readonly callId: string;
    readonly arguments: Readonly<Record<string, unknown>>;
  };
  tool_call_output_delta: { readonly toolName: string; readonly callId: string; readonly delta: string };
  tool_call_end: {
    readonly toolName: string;
    readonly callId: string;
    /**
     * The arguments the tool ran with: after a beforeToolCall/preToolUse rewrite, else as the
     * model sent them (absent when the call never reached validation, e.g. an interrupted round).
     */
    readonly arguments?: Readonly<Record<string, unknown>>;
    /** The whole output, never truncated; the model received a truncated copy. */
    readonly output: string;
    readonly isError: boolean;
    /** Why it failed (see ToolOutput.errorCode); absent on success. */
    readonly errorCode?: string;
    /** Whether the model's copy was shortened. */
    readonly truncated: boolean;
    readonly details?: ToolDetails;
    readonly durationMs: number;
  };
  steering_injected: { readonly content: string; readonly source: "host" | "loop_detection" | "hook" };
  turn_limit: {
    readonly limit: "max_tool_rounds_per_input" | "max_turns";
    readonly value: number;
    readonly toolRounds: number;
    readonly totalTurns: number;
  };
  loop_detection: {
    readonly message: string;
    /** Length of the repeating cycle of tool calls. */
    readonly patternLength: number;
    readonly toolNames: readonly string[];
  };
  warning: {
    readonly code:
      | "context_usage"
      | "context_length"
      | "config"
      | "shutdown"
      | "compaction"
      | "hook"
      | "malformed_call"
      | "continued"
      | "paused_turn";
    readonly message: string;
    readonly usedTokens?: number;
    readonly contextWindow?: number;
  };
  error: {
    readonly message: string;
    /** The error class's name (AuthenticationError…). */
    readonly errorName: string;
    readonly statusCode?: number;
    readonly retryable: boolean;
    /** True when the session closed because of it. */
    readonly fatal: boolean;
    /**
     * Set when the model's response itself ended the input: the provider's finish reason
     * (refusal, SAFETY, max_tokens, MALFORMED_FUNCTION_CALL…).
     */
    readonly finishReason?: string;
  };
  /**
   * A model call is tried again after a transient failure. `discardPartial`: the stream broke
   * after it started, so the partial answer shown since the last ASSISTANT_TEXT_START must be
   * dropped; the same request goes again and no tool call has run.
   */
  retry: {
    /** 1 for the first retry. */
    readonly attempt: number;
    readonly maxRetries: number;
    readonly delayMs: number;
    readonly message: string;
    readonly errorName: string;
    readonly statusCode?: number;
    readonly discardPartial: boolean;
  };
  compaction_start: {
    /** At the threshold, after the provider reported the context too long, or Session.compact(). */
    readonly reason: "threshold" | "context_length" | "manual";
    readonly tokensBefore: number;
  };
  compaction_end: {
    readonly tokensBefore: number;
    /** Estimated: no model has read the compacted history yet. */
    readonly tokensAfter: number;
    /** Old tool outputs replaced by a short marker. */
    readonly prunedToolOutputs: number;
    /** Whether older turns were replaced by a summary. */
    readonly summarized: boolean;
  };
  /** An event of a subagent, forwarded to its parent from the child's first event on. */
  subagent_event: {
    /** The child's id (what spawn_agent returned). */
    readonly agentId: string;
    /** The id of the parent's spawn_agent call that started the child. */
    readonly parentCallId?: string;
    /** The custom subagent type it runs as, when one was given. */
    readonly agentType?: string;
    readonly event: SessionEvent;
  };
}

/** One event: kind, time, the emitting session and the kind's data. */
export type SessionEvent = {
  [K in EventKind]: {
    readonly kind: K;
    /** ISO 8601. */
    readonly timestamp: string;
    readonly sessionId: string;
    readonly data: EventDataMap[K];
  };
}[EventKind];

/** The event of one kind. */
export type SessionEventOf<K extends EventKind> = Extract<SessionEvent, { kind: K }>;
