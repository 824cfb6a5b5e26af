import { randomUUID } from "node:crypto";
import type { SessionEvent } from "@attractor/agent";
import type { CostSummary, RuntimeNotice } from "../runtime/index.js";

/** Why a headless run ended. */
export type ExitReason = "completed" | "awaiting_input" | "turn_limit" | "error" | "aborted";

/**
 * The one object `--output-format json` prints, and the last line of `stream-json` and `events`:
 * Claude Code's result message (`type`, `subtype`, `is_error`, `result`, `session_id`,
 * `num_turns`, `total_cost_usd`, `duration_ms`, `duration_api_ms`, `usage`,
 * `permission_denials`), so scripts written for it read ours, plus attractor's own fields.
 */
export interface HeadlessResult {
  readonly type: "result";
  /** Claude Code's subtypes; an interrupted run is `error_during_execution` with exit_reason "aborted". */
  readonly subtype: "success" | "error_max_turns" | "error_during_execution";
  readonly is_error: boolean;
  readonly exit_reason: ExitReason;
  /** The final answer: the text of the run's last model response that had any. */
  readonly result: string;
  readonly session_id: string;
  /** Model responses in this run. */
  readonly num_turns: number;
  readonly duration_ms: number;
  /** Time spent waiting for model responses (request sent to response complete), in total. */
  readonly duration_api_ms: number;
  /** US dollars from the catalog prices; 0 with `cost_known: false` when the model has no known price. */
  readonly total_cost_usd: number;
  readonly cost_known: boolean;
  readonly usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_read_input_tokens: number;
    readonly cache_creation_input_tokens: number;
    readonly reasoning_tokens: number;
    readonly total_tokens: number;
  };
  /** Tool calls the permission policy refused: Claude Code's fields, and the message the model got. */
  readonly permission_denials: readonly {
    readonly tool_name: string;
    readonly tool_use_id: string;
    readonly tool_input: Readonly<Record<string, unknown>>;
    readonly message: string;
  }[];
  readonly provider: string;
  readonly model: string;
  readonly tool_calls: number;
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
  readonly uuid: string;
  /** Claude Code's list of what went wrong, on an error result (the SDK reads it there). */
  readonly errors?: readonly string[];
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
  const denials: HeadlessResult["permission_denials"][number][] = [];
  const inputs = new Map<string, Readonly<Record<string, unknown>>>();
  // Model time: from the moment a request can go out (the message, or a tool round's end) to its answer.
  let apiMs = 0;
  let waitingSince: number | undefined;

  return {
    onEvent(event) {
      if (!("sessionId" in event)) return;
      switch (event.kind) {
        case "user_input":
          waitingSince = performance.now();
          break;
        case "assistant_text_end":
          if (waitingSince !== undefined) apiMs += performance.now() - waitingSince;
          waitingSince = undefined;
          turns++;
          // An answer cut at the output limit is continued by the next response: they are one answer.
          if (continuing) finalText += event.data.text;
          else if (event.data.text.trim() !== "") finalText = event.data.text;
          continuing = event.data.finishReason === "length" && event.data.toolCalls.length === 0;
          break;
        case "tool_call_start":
          toolCalls++;
          inputs.set(event.data.callId, event.data.arguments);
          break;
        case "tool_call_end":
          waitingSince = performance.now();
          if (event.data.isError && DENIED.test(event.data.output))
            denials.push({
              tool_name: event.data.toolName,
              tool_use_id: event.data.callId,
              tool_input: inputs.get(event.data.callId) ?? {},
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
        ? "error_during_execution"
        : exit === "completed" || exit === "awaiting_input"
          ? "success"
          : exit === "turn_limit"
            ? "error_max_turns"
            : "error_during_execution";
      const c = details.cost;
      return {
        type: "result",
        subtype,
        is_error: subtype !== "success",
        exit_reason: details.interrupted ? "aborted" : exit,
        result: finalText,
        session_id: details.sessionId,
        num_turns: turns,
        duration_ms: Math.round(details.durationMs),
        duration_api_ms: Math.round(apiMs),
        total_cost_usd: c.costUsd ?? 0,
        cost_known: c.costUsd !== undefined,
        usage: {
          input_tokens: c.inputTokens,
          output_tokens: c.outputTokens,
          cache_read_input_tokens: c.cacheReadTokens,
          cache_creation_input_tokens: c.cacheWriteTokens,
          reasoning_tokens: c.reasoningTokens,
          total_tokens: c.totalTokens,
        },
        permission_denials: denials,
        provider: details.provider,
        model: details.model,
        tool_calls: toolCalls,
        uuid: randomUUID(),
        ...(error !== undefined && subtype !== "success" && { error }),
        ...(subtype !== "success" && {
          errors: [
            details.interrupted
              ? "interrupted"
              : (error?.message ?? (exit === "turn_limit" ? "the turn limit was reached" : exit)),
          ],
        }),
      };
    },
  };
}
