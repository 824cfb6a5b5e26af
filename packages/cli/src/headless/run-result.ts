import type { SessionEvent } from "@attractor/agent";
import type { CostSummary, RuntimeNotice } from "../runtime/types.js";

/** Why a headless run ended. */
export type ExitReason = "completed" | "awaiting_input" | "turn_limit" | "error" | "aborted";

/** The one object `--output-format json` prints, and the last line of `stream-json`. */
export interface HeadlessResult {
  readonly kind: "result";
  readonly subtype: "success" | "error_max_turns" | "error_during_execution" | "error_interrupted";
  readonly is_error: boolean;
  readonly exit_reason: ExitReason;
  /** The final answer: the text of the run's last model response that had any. */
  readonly result: string;
  readonly session_id: string;
  readonly provider: string;
  readonly model: string;
  /** Model responses in this run. */
  readonly turns: number;
  readonly tool_calls: number;
  readonly duration_ms: number;
  readonly usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly reasoning_tokens: number;
    readonly cache_read_tokens: number;
    readonly cache_write_tokens: number;
    readonly total_tokens: number;
  };
  /** US dollars from the catalog prices; null when the model has no known price. */
  readonly cost_usd: number | null;
  /** Tool calls the permission policy refused, with the message the model got. */
  readonly permission_denials: readonly {
    readonly tool: string;
    readonly call_id: string;
    readonly message: string;
  }[];
  /**
   * The error that ended the run, when one did; `finish_reason` is the provider's own reason when
   * the model's response itself was the failure (refusal, SAFETY, max_tokens…).
   */
  readonly error?: {
    readonly name: string;
    readonly message: string;
    readonly status_code?: number;
    readonly finish_reason?: string;
  };
}

/** Follows a run's events and turns them into a HeadlessResult. */
export interface RunTracker {
  onEvent(event: SessionEvent | RuntimeNotice): void;
  /** A failure outside the session's events (the runtime threw). */
  fail(error: unknown): void;
  readonly reason: ExitReason;
  result(details: {
    sessionId: string;
    provider: string;
    model: string;
    cost: CostSummary;
    durationMs: number;
    interrupted: boolean;
  }): HeadlessResult;
}

const DENIED = /^Permission denied\b/;

/** A tracker for one submitted message. */
export function createRunTracker(): RunTracker {
  let reason: ExitReason | undefined;
  let finalText = "";
  let continuing = false;
  let turns = 0;
  let toolCalls = 0;
  let error: HeadlessResult["error"];
  const denials: { tool: string; call_id: string; message: string }[] = [];

  return {
    onEvent(event) {
      if (!("sessionId" in event)) return;
      switch (event.kind) {
        case "assistant_text_end":
          turns++;
          // An answer cut at the output limit is continued by the next response: they are one answer.
          if (continuing) finalText += event.data.text;
          else if (event.data.text.trim() !== "") finalText = event.data.text;
          continuing = event.data.finishReason === "length" && event.data.toolCalls.length === 0;
          break;
        case "tool_call_start":
          toolCalls++;
          break;
        case "tool_call_end":
          if (event.data.isError && DENIED.test(event.data.output))
            denials.push({
              tool: event.data.toolName,
              call_id: event.data.callId,
              message: event.data.output,
            });
          break;
        case "error":
          error = {
            name: event.data.errorName,
            message: event.data.message,
            ...(event.data.statusCode !== undefined && { status_code: event.data.statusCode }),
            ...(event.data.finishReason !== undefined && { finish_reason: event.data.finishReason }),
          };
          break;
        case "processing_end":
          // The first cycle's end is the run's; an interrupted run may have its session rebuilt.
          reason ??= event.data.reason;
          break;
      }
    },
    fail(err) {
      reason = "error";
      error = {
        name: err instanceof Error ? err.name : "Error",
        message: err instanceof Error ? err.message : String(err),
      };
    },
    get reason() {
      return reason ?? "error";
    },
    result(details) {
      const exit = reason ?? "error";
      const subtype: HeadlessResult["subtype"] = details.interrupted
        ? "error_interrupted"
        : exit === "completed" || exit === "awaiting_input"
          ? "success"
          : exit === "turn_limit"
            ? "error_max_turns"
            : exit === "aborted"
              ? "error_interrupted"
              : "error_during_execution";
      const c = details.cost;
      return {
        kind: "result",
        subtype,
        is_error: subtype !== "success",
        exit_reason: exit,
        result: finalText,
        session_id: details.sessionId,
        provider: details.provider,
        model: details.model,
        turns,
        tool_calls: toolCalls,
        duration_ms: Math.round(details.durationMs),
        usage: {
          input_tokens: c.inputTokens,
          output_tokens: c.outputTokens,
          reasoning_tokens: c.reasoningTokens,
          cache_read_tokens: c.cacheReadTokens,
          cache_write_tokens: c.cacheWriteTokens,
          total_tokens: c.totalTokens,
        },
        cost_usd: c.costUsd ?? null,
        permission_denials: denials,
        ...(error !== undefined && subtype !== "success" && { error }),
      };
    },
  };
}
