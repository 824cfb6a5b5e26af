import {
  type Request,
  type Response,
  responseText,
  StreamError,
  type StreamEvent,
  systemMessage,
  type Usage,
  userMessage,
} from "@attractor/llm";
import { rewriteResponse } from "../prompted/text-protocol.js";
import type { EventDataMap } from "../types/events.js";
import type { Turn } from "../types/turn.js";
import { estimateHistoryTokens, estimateTurnTokens, requestOverheadTokens } from "./estimate.js";
import { KEEP_RECENT_TOOL_ROUNDS, pruneToolOutputs } from "./prune.js";
import { buildSummaryTurn, renderTranscript, SUMMARIZER_PROMPT } from "./summary.js";

/** Share of the context in use (at most the window) the verbatim recent turns may keep. */
export const KEEP_RECENT_FRACTION = 0.3;

/** Share of the context window the transcript sent to the summarising call may fill. */
const TRANSCRIPT_FRACTION = 0.6;

/**
 * Pruning alone is enough only when it gets this far below the threshold; closer, the next round
 * would cross again, so the older turns are summarised as well.
 */
const PRUNE_TARGET = 0.9;

/** Tokens of recent turns to keep verbatim when `used` tokens are in use. */
const keepBudget = (used: number, contextWindow: number): number =>
  Math.min(used, contextWindow) * KEEP_RECENT_FRACTION;

/** Why compaction runs. */
export type CompactionReason = EventDataMap["compaction_start"]["reason"];

/** What one compaction needs from its session. */
export interface CompactionInput {
  readonly reason: CompactionReason;
  readonly turns: readonly Turn[];
  /** The request about to be sent: its system prompt and tools count, and the summary call reuses its model. */
  readonly request: Request;
  readonly contextWindow: number;
  /** Fraction of the window compaction aims below. */
  readonly threshold: number;
  /** What the summary should pay most attention to (Session.compact(focus)). */
  readonly focus?: string;
  /** Opens a model stream (the summary call goes through the session's client). */
  readonly stream: (request: Request) => AsyncIterable<StreamEvent>;
  /** Whether a tool changes files, for the summary's list of files touched. */
  readonly modifies: (toolName: string) => boolean;
  readonly onStart: (data: EventDataMap["compaction_start"]) => void;
  readonly onEnd: (data: EventDataMap["compaction_end"]) => void;
}

/** The outcome: the new history (the same array when nothing changed) and what it took. */
export interface CompactionResult {
  readonly turns: readonly Turn[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly prunedToolOutputs: number;
  readonly summarized: boolean;
  /** Tokens the summary call used. */
  readonly usage?: Usage;
  /** Why summarising failed, when it was tried and failed. */
  readonly error?: unknown;
}

/** Reads a stream to its final response. */
async function finalResponse(stream: AsyncIterable<StreamEvent>): Promise<Response> {
  for await (const event of stream) if (event.type === "finish") return event.response;
  throw new StreamError("The summary stream ended without a finish event");
}

/**
 * Index of the first turn kept verbatim: the longest tail within `budget` tokens that starts at a
 * turn a conversation may resume from (not a tool result, whose call would be cut away).
 */
export function chooseCut(turns: readonly Turn[], budget: number): number {
  let cut = turns.length;
  let kept = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    kept += estimateTurnTokens(turn);
    if (kept > budget) break;
    if (turn.kind !== "tool_results" && turn.kind !== "summary") cut = i;
  }
  return cut;
}

/** Whether pruning or summarising could shrink the history at all. */
function canCompact(turns: readonly Turn[], keep: number): boolean {
  if (pruneToolOutputs(turns, KEEP_RECENT_TOOL_ROUNDS).pruned > 0) return true;
  return turns.slice(0, chooseCut(turns, keep)).some((t) => t.kind !== "summary");
}

/**
 * Keeps a session's history within its context window: measures use before a call, prunes old
 * tool outputs, and summarises older turns with the model when pruning is not enough. Holds one
 * piece of state: from which turn on the provider's reported usage describes the current history.
 */
export class Compactor {
  private measuredFrom = 0;

  /**
   * Tokens the request will use: the provider's count for the latest response made on the
   * current history plus estimates for what came after, or an estimate of everything.
   */
  measure(turns: readonly Turn[], request: Request): number {
    let from = this.measuredFrom;
    for (let i = turns.length - 1; i >= 0; i--) {
      if (turns[i]!.kind === "summary") {
        from = Math.max(from, i + 1);
        break;
      }
    }
    for (let i = turns.length - 1; i >= from; i--) {
      const turn = turns[i]!;
      if (turn.kind === "assistant" && turn.usage.inputTokens > 0) {
        return turn.usage.inputTokens + turn.usage.outputTokens + estimateHistoryTokens(turns.slice(i + 1));
      }
    }
    return requestOverheadTokens(request) + estimateHistoryTokens(turns);
  }

  /** Whether use has reached the threshold and compaction has something to work on. */
  due(turns: readonly Turn[], request: Request, contextWindow: number, threshold: number): boolean {
    const used = this.measure(turns, request);
    if (contextWindow <= 0 || used < contextWindow * threshold) return false;
    return canCompact(turns, keepBudget(used, contextWindow));
  }

  /**
   * Prunes old tool outputs; then, when still at the threshold (or always, for a manual
   * compaction or a context overflow), summarises the older turns with the model and keeps the
   * recent ones verbatim. Emits start and end through the input's callbacks; never throws.
   */
  async compact(input: CompactionInput): Promise<CompactionResult> {
    const tokensBefore = this.measure(input.turns, input.request);
    input.onStart({ reason: input.reason, tokensBefore });
    const overhead = requestOverheadTokens(input.request);
    const { turns: pruned, pruned: prunedToolOutputs } = pruneToolOutputs(
      input.turns,
      KEEP_RECENT_TOOL_ROUNDS,
    );
    let turns = pruned;
    // The provider's count (when there is one) less what pruning removed, by estimate.
    const afterPrune = tokensBefore - (estimateHistoryTokens(input.turns) - estimateHistoryTokens(pruned));
    let summarized = false;
    let usage: Usage | undefined;
    let error: unknown;
    if (input.reason !== "threshold" || afterPrune >= input.contextWindow * input.threshold * PRUNE_TARGET) {
      const outcome = await this.summarize(turns, input, tokensBefore);
      if ("turns" in outcome) {
        turns = outcome.turns;
        summarized = true;
      } else error = outcome.error;
      usage = outcome.usage;
    }
    if (turns !== input.turns) this.measuredFrom = turns.length;
    const tokensAfter = summarized ? overhead + estimateHistoryTokens(turns) : afterPrune;
    input.onEnd({ tokensBefore, tokensAfter, prunedToolOutputs, summarized });
    return {
      turns,
      tokensBefore,
      tokensAfter,
      prunedToolOutputs,
      summarized,
      ...(usage !== undefined && { usage }),
      ...(error !== undefined && { error }),
    };
  }

  private async summarize(
    turns: readonly Turn[],
    input: CompactionInput,
    used: number,
  ): Promise<{ turns: Turn[]; usage?: Usage } | { error: unknown; usage?: Usage }> {
    const cut = chooseCut(turns, keepBudget(used, input.contextWindow));
    const older = turns.slice(0, cut);
    if (!older.some((t) => t.kind !== "summary"))
      return { error: new Error("nothing older than the recent turns to summarise") };
    // After an overflow the real window is evidently smaller than what was sent.
    const window =
      input.reason === "context_length" ? Math.min(input.contextWindow, used) : input.contextWindow;
    const transcript = renderTranscript(older, Math.floor(window * TRANSCRIPT_FRACTION * 4));
    const focus = input.focus?.trim() ? `\n\nPay particular attention to: ${input.focus.trim()}` : "";
    const { request } = input;
    const summaryRequest: Request = {
      model: request.model,
      ...(request.provider !== undefined && { provider: request.provider }),
      messages: [
        systemMessage(SUMMARIZER_PROMPT),
        userMessage(`<transcript>\n${transcript}\n</transcript>${focus}\n\nWrite the summary now.`),
      ],
      ...(request.providerOptions !== undefined && { providerOptions: request.providerOptions }),
      ...(request.signal !== undefined && { signal: request.signal }),
    };
    let response: Response;
    try {
      response = await finalResponse(input.stream(summaryRequest));
    } catch (error) {
      return { error };
    }
    const { raw: _raw, ...usage } = response.usage;
    // Local models may think aloud or try to call tools; only the answer text is the summary.
    const summary = responseText(rewriteResponse(response, { toolCalls: true, thinkTags: true })).trim();
    if (summary === "") return { error: new Error("the model returned an empty summary"), usage };
    const summaryTurn = buildSummaryTurn(older, summary, input.modifies, new Date().toISOString());
    return { turns: [summaryTurn, ...turns.slice(cut)], usage };
  }
}
