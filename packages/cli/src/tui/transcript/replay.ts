import type { Turn } from "@attractor/agent";
import { typedText } from "../../runtime/user-context.js";
import type { NewItem } from "./items.js";

/** Items shown when a stored conversation is resumed; older ones are summarised in one line. */
const REPLAY_ITEMS = 60;

/**
 * The transcript items of a restored history (resume): user messages, answers, and tool calls
 * with the results the model saw. Only the last REPLAY_ITEMS are kept.
 */
export function replayHistory(turns: readonly Turn[]): NewItem[] {
  const items: NewItem[] = [];
  const pending = new Map<string, { toolName: string; arguments: Readonly<Record<string, unknown>> }>();
  for (const turn of turns) {
    switch (turn.kind) {
      case "user":
        items.push({ kind: "user", text: typedText(turn.content) });
        break;
      case "assistant":
        if (turn.content.trim()) items.push({ kind: "assistant", text: turn.content.trim(), first: true });
        for (const call of turn.toolCalls)
          pending.set(call.id, { toolName: call.name, arguments: call.arguments });
        break;
      case "tool_results":
        for (const r of turn.results) {
          const call = pending.get(r.toolCallId);
          pending.delete(r.toolCallId);
          items.push({
            kind: "tool",
            call: {
              callId: r.toolCallId,
              toolName: r.toolName,
              arguments: call?.arguments ?? {},
              output: r.content.split("\n").slice(0, 40).join("\n"),
              result: { isError: r.isError, durationMs: 0, outputLines: r.content.split("\n").length },
            },
          });
        }
        break;
      case "steering":
        items.push({ kind: "notice", tone: "info", text: `Steering: ${turn.content}` });
        break;
      case "summary":
        items.push({ kind: "notice", tone: "info", text: "Earlier conversation summarised." });
        break;
      case "system":
        break;
    }
  }
  if (items.length <= REPLAY_ITEMS) return items;
  const hidden = items.length - REPLAY_ITEMS;
  return [
    { kind: "notice", tone: "info", text: `… ${hidden} earlier items not shown` },
    ...items.slice(-REPLAY_ITEMS),
  ];
}
