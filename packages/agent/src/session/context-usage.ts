import type { Turn } from "../types/turn.js";

/** Approximate tokens in a history: characters / 4, the spec's heuristic. */
export function estimateHistoryTokens(history: readonly Turn[]): number {
  let chars = 0;
  for (const turn of history) {
    switch (turn.kind) {
      case "assistant":
        chars += turn.content.length + (turn.reasoning?.length ?? 0);
        for (const call of turn.toolCalls) chars += call.name.length + JSON.stringify(call.arguments).length;
        break;
      case "tool_results":
        for (const result of turn.results) chars += result.content.length;
        break;
      default:
        chars += turn.content.length;
    }
  }
  return Math.ceil(chars / 4);
}

/**
 * Watches how full the context window is and says when to warn: once each time usage crosses
 * the threshold upwards, not on every round while it stays above.
 */
export class ContextTracker {
  private above = false;

  constructor(
    private readonly contextWindow: number,
    private readonly threshold = 0.8,
  ) {}

  /**
   * The tokens in use: the provider's count for the latest response (input + output) plus the
   * estimate for turns after it, or the heuristic over history and system prompt when the
   * provider reported nothing.
   */
  measure(history: readonly Turn[], systemPrompt: string): number {
    for (let i = history.length - 1; i >= 0; i--) {
      const turn = history[i]!;
      if (turn.kind === "assistant" && turn.usage.inputTokens > 0) {
        return turn.usage.inputTokens + turn.usage.outputTokens + estimateHistoryTokens(history.slice(i + 1));
      }
    }
    return estimateHistoryTokens(history) + Math.ceil(systemPrompt.length / 4);
  }

  /** The percentage to warn about, or undefined when no warning is due. */
  check(usedTokens: number): number | undefined {
    if (this.contextWindow <= 0) return undefined;
    const ratio = usedTokens / this.contextWindow;
    if (ratio < this.threshold) {
      this.above = false;
      return undefined;
    }
    if (this.above) return undefined;
    this.above = true;
    return Math.round(ratio * 100);
  }
}

/** The spec's warning text. */
export const contextWarning = (percent: number): string => `Context usage at ~${percent}% of context window`;
