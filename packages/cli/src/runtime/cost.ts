import type { UsageTotals } from "@attractor/agent";
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
