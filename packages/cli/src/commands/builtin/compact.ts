import type { SlashCommand } from "../types.js";

/** /compact [focus]: shrinks the context now, optionally telling the summary what to keep. */
export const compactCommand: SlashCommand = {
  name: "compact",
  args: "[focus]",
  summary: "Shrink the conversation's context now (optionally: what to keep)",
  idleOnly: true,
  async run({ runtime, host }, args) {
    const before = runtime.contextPercent();
    await runtime.compact(args === "" ? undefined : args);
    const after = runtime.contextPercent();
    const figures =
      before !== undefined && after !== undefined
        ? ` (context ${Math.round(before)}% → ${Math.round(after)}%)`
        : "";
    host.show({ kind: "text", tone: "success", text: `Compacted the conversation${figures}.` });
  },
};
