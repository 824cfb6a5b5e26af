import type { Turn, UsageTotals } from "@attractor/agent";
import { estimateCost } from "@attractor/llm";
import type { CostSummary } from "./types.js";

/** Sums tokens and catalog-priced dollars over the model responses of a run. */
export interface CostTracker {
  /** Records one response's usage, priced for `model`. */
  record(model: string, usage: UsageTotals): void;
  summary(): CostSummary;
}

/** A tracker starting at zero. The dollar total is undefined once any response has no known price. */
export function createCostTracker(): CostTracker {
  let input = 0;
  let output = 0;
  let reasoning = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let total = 0;
  let dollars: number | undefined = 0;
  return {
    record(model, usage) {
      input += usage.inputTokens;
      output += usage.outputTokens;
      reasoning += usage.reasoningTokens ?? 0;
      cacheRead += usage.cacheReadTokens ?? 0;
      cacheWrite += usage.cacheWriteTokens ?? 0;
      total += usage.totalTokens;
      const cost = estimateCost(model, { ...usage });
      dollars = dollars === undefined || cost === undefined ? undefined : dollars + cost;
    },
    summary: () => ({
      inputTokens: input,
      outputTokens: output,
      reasoningTokens: reasoning,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      totalTokens: total,
      costUsd: dollars,
    }),
  };
}

/** Share of a context window (0–100, one decimal) a response's prompt plus answer filled. */
export function contextShare(usage: UsageTotals, contextWindow: number): number | undefined {
  if (!(contextWindow > 0)) return undefined;
  const used = usage.inputTokens + usage.outputTokens;
  return Math.min(100, Math.round((used / contextWindow) * 1000) / 10);
}

/**
 * What the model responses of a stored conversation cost, priced for `model` as the run's own
 * responses are (a response's reported model id may be a dated one the catalog does not price).
 */
export function historyCost(history: readonly Turn[], model: string): CostSummary {
  const tracker = createCostTracker();
  for (const turn of history) if (turn.kind === "assistant") tracker.record(model, turn.usage);
  return tracker.summary();
}

/** Two summaries added; the dollars are unknown when either's are. */
export function addCosts(a: CostSummary, b: CostSummary): CostSummary {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd === undefined || b.costUsd === undefined ? undefined : a.costUsd + b.costUsd,
  };
}
