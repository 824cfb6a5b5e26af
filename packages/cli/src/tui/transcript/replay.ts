import type { ToolDetails, Turn } from "@attractor/agent";
import { unifiedDiff } from "@attractor/agent/internals";
import { typedText } from "@attractor/runtime";
import type { NewItem } from "./items.js";

/**
 * Items shown when a stored conversation is resumed: in practice the whole conversation (a user
 * coming back wants its start, their first message above all). They are printed once into the
 * scrollback, so only a pathological history reaches the cap; older items are then counted.
 */
export const REPLAY_ITEMS = 5000;

/**
 * The transcript items of a restored history (resume): user messages, answers, and tool calls
 * with the results the model saw; past `limit` (REPLAY_ITEMS), the oldest are counted in one line
 * that says how to show them (/history).
 */
export function replayHistory(turns: readonly Turn[], limit: number = REPLAY_ITEMS): NewItem[] {
  const items: NewItem[] = [];
  const pending = new Map<string, { toolName: string; arguments: Readonly<Record<string, unknown>> }>();
  for (const turn of turns) {
    switch (turn.kind) {
      case "user":
        items.push({ kind: "user", text: typedText(turn.content) });
        break;
      case "assistant":
        if (turn.reasoning?.trim()) items.push({ kind: "reasoning", text: turn.reasoning.trim() });
        if (turn.content.trim()) items.push({ kind: "assistant", text: turn.content.trim(), first: true });
        for (const call of turn.toolCalls)
          pending.set(call.id, { toolName: call.name, arguments: call.arguments });
        break;
      case "tool_results":
        for (const r of turn.results) {
          const call = pending.get(r.toolCallId);
          pending.delete(r.toolCallId);
          const args = call?.arguments ?? {};
          const details = replayedDetails(r.toolName, args, r.content);
          items.push({
            kind: "tool",
            call: {
              callId: r.toolCallId,
              toolName: r.toolName,
              arguments: args,
              // Whole (the model saw a bounded copy): the block shows a preview, the viewer all.
              output: r.content,
              result: {
                isError: r.isError,
                durationMs: typeof details?.durationMs === "number" ? details.durationMs : 0,
                outputLines: countLines(r.content),
                ...(details !== undefined && { details }),
              },
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
  if (items.length <= limit) return items;
  const hidden = items.length - limit;
  return [
    { kind: "notice", tone: "info", text: `… ${hidden} earlier items not shown: /history shows them` },
    ...items.slice(-limit),
  ];
}

/**
 * What a stored call's block shows beyond its output, worked out again from its arguments (the
 * stored history keeps what the model saw, not the details the live call reported): an edit's
 * diff, a write's size, a read's line count.
 */
function replayedDetails(
  toolName: string,
  args: Readonly<Record<string, unknown>>,
  output: string,
): ToolDetails | undefined {
  const path =
    typeof args.file_path === "string" ? args.file_path : typeof args.path === "string" ? args.path : "";
  if (toolName === "shell") {
    // The shell tool ends its output with these two lines.
    const footer = /(?:^|\n)Exit code: ([^\n]*)\nDuration: (\d+) ms\s*$/.exec(output);
    if (!footer) return undefined;
    const code = Number(footer[1]);
    return {
      exitCode: Number.isInteger(code) ? code : null,
      durationMs: Number(footer[2]),
      ...(output.includes("[ERROR: Command timed out") && { timedOut: true }),
    };
  }
  if (toolName === "edit_file") {
    // The result carries the diff the tool made (after its normalisations): that one is shown.
    const at = output.indexOf("\n--- a/");
    if (output.startsWith("Edited ") && at !== -1) return { diff: output.slice(at + 1), path };
  }
  if (
    toolName === "edit_file" &&
    typeof args.old_string === "string" &&
    typeof args.new_string === "string"
  ) {
    // The strings are pieces of lines: ended alike, so the diff has no end-of-file remarks.
    const ended = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
    const before = args.old_string === "" ? undefined : ended(args.old_string);
    const diff = unifiedDiff(path, before, ended(args.new_string));
    return diff ? { diff, path } : undefined;
  }
  if (toolName === "write_file" && typeof args.content === "string")
    return { path, bytesWritten: Buffer.byteLength(args.content, "utf8") };
  if (toolName === "read_file") return { path, linesRead: countLines(output) };
  return undefined;
}

function countLines(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
