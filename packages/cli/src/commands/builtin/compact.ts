import type { SessionEvent } from "@attractor/agent";
import type { OutputBlock, SlashCommand } from "../types.js";

/** What a compaction reported when it ended. */
type CompactionEnd = Extract<SessionEvent, { kind: "compaction_end" }>["data"];

/** "4.9k", "120k", "1.2M": token counts as the status line shows them. */
function tokens(n: number): string {
  if (!Number.isFinite(n)) return "?";
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The prefix the session puts on a summary's failure (the line says it in its own words). */
const SUMMARY_FAILED = /^Could not summarise the history: /;

/**
 * The one line a /compact prints: what shrank, by how much (tokens before → after), or that
 * nothing did and why. Never a success where the history is unchanged.
 */
export function compactionLine(end: CompactionEnd | undefined, failure: string | undefined): OutputBlock {
  const reason = failure?.replace(SUMMARY_FAILED, "");
  if (end === undefined)
    return {
      kind: "text",
      tone: "error",
      text: `Could not compact the conversation${reason ? `: ${reason}` : "."}`,
    };
  const figures = `${tokens(end.tokensBefore)} → ${tokens(end.tokensAfter)} tokens`;
  const pruned = `${end.prunedToolOutputs} old tool output${end.prunedToolOutputs === 1 ? "" : "s"} pruned`;
  if (end.summarized) {
    const parts = ["earlier turns summarised", ...(end.prunedToolOutputs > 0 ? [pruned] : [])];
    return {
      kind: "text",
      tone: "success",
      text: `Compacted the conversation: ${figures} (${parts.join(", ")}).`,
    };
  }
  // Without a reason (the summary was stopped), the line says only what is known.
  const why = reason
    ? `could not summarise the earlier turns: ${reason}`
    : "the earlier turns were not summarised";
  if (end.prunedToolOutputs > 0)
    return { kind: "text", tone: "warning", text: `Compacted partly: ${figures} (${pruned}); ${why}.` };
  return {
    kind: "text",
    tone: "warning",
    text: `Nothing compacted (${tokens(end.tokensBefore)} tokens in use)${reason ? `: ${reason}` : ""}.`,
  };
}

/** /compact [focus]: shrinks the context now, optionally telling the summary what to keep. */
export const compactCommand: SlashCommand = {
  name: "compact",
  args: "[focus]",
  summary: "Shrink the conversation's context now (optionally: what to keep)",
  idleOnly: true,
  async run({ runtime, host }, args) {
    // The session reports the outcome as events (figures, then a summary's failure): they make
    // this command's one line, and the transcript shows no other for a compaction asked for.
    let end: CompactionEnd | undefined;
    let failure: string | undefined;
    const stop = runtime.subscribe((update) => {
      if (update.source !== "session") return;
      const event = update.event;
      if (event.kind === "compaction_end") end = event.data;
      else if (event.kind === "warning" && event.data.code === "compaction") failure = event.data.message;
    });
    try {
      await runtime.compact(args === "" ? undefined : args);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      end = undefined;
    } finally {
      stop();
    }
    host.show(compactionLine(end, failure));
  },
};
