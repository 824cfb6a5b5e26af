import type { SlashCommand } from "../types.js";

/** /cost: tokens and money spent in this run. */
export const costCommand: SlashCommand = {
  name: "cost",
  summary: "Show the tokens used and their cost",
  async run({ runtime, host }) {
    const c = runtime.cost();
    const n = (v: number) => v.toLocaleString("en-US");
    host.show({
      kind: "list",
      title: "Usage",
      rows: [
        { label: "input", detail: `${n(c.inputTokens)} tokens` },
        { label: "output", detail: `${n(c.outputTokens)} tokens` },
        ...(c.reasoningTokens > 0 ? [{ label: "reasoning", detail: `${n(c.reasoningTokens)} tokens` }] : []),
        ...(c.cacheReadTokens > 0 ? [{ label: "cache read", detail: `${n(c.cacheReadTokens)} tokens` }] : []),
        ...(c.cacheWriteTokens > 0
          ? [{ label: "cache write", detail: `${n(c.cacheWriteTokens)} tokens` }]
          : []),
        { label: "total", detail: `${n(c.totalTokens)} tokens` },
        {
          label: "cost",
          detail: c.costUsd === undefined ? "unknown (no price for this model)" : `$${c.costUsd.toFixed(4)}`,
        },
      ],
    });
  },
};
