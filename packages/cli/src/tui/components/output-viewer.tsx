import { Box, Text, useStdout } from "ink";
import { type ReactNode, useState } from "react";
import { useKeys } from "../input/keys.js";
import type { FullOutput } from "../transcript/model.js";
import { summarizeToolCall } from "../transcript/tool-summary.js";

/** Rows kept for the viewer's frame, the spinner and the status line around the lines shown. */
const CHROME_ROWS = 10;

/**
 * The whole output of the latest tool calls, one at a time, scrolled in place of the input:
 * ↑/↓ (or j/k) a line, PgUp/PgDn a page, g/G the ends, ←/→ the previous or next call; ctrl+o or
 * Esc goes back. Lines are cut at the terminal's width, never wrapped, so the count is exact.
 */
export function OutputViewer({
  outputs,
  onClose,
}: {
  readonly outputs: readonly FullOutput[];
  readonly onClose: () => void;
}): ReactNode {
  const { stdout } = useStdout();
  const height = Math.max(3, (stdout.rows ?? 24) - CHROME_ROWS);
  const [index, setIndex] = useState(outputs.length - 1);
  const [top, setTop] = useState(0);
  const shown = outputs[index];
  const lines = shown ? linesOf(shown.output) : [];
  const last = Math.max(0, lines.length - height);
  const scroll = (to: number) => setTop(Math.max(0, Math.min(last, to)));
  useKeys((input, key) => {
    if (key.escape || (key.ctrl && input === "o") || input === "q") onClose();
    else if (key.upArrow || input === "k") scroll(top - 1);
    else if (key.downArrow || input === "j") scroll(top + 1);
    else if (key.pageUp) scroll(top - height);
    else if (key.pageDown || input === " ") scroll(top + height);
    else if (input === "g") scroll(0);
    else if (input === "G") scroll(last);
    else if (key.leftArrow && index > 0) {
      setIndex(index - 1);
      setTop(0);
    } else if (key.rightArrow && index < outputs.length - 1) {
      setIndex(index + 1);
      setTop(0);
    }
  });
  if (!shown)
    return (
      <Box borderStyle="round" borderColor="cyan" paddingX={1} flexDirection="column">
        <Text>No tool output to show yet.</Text>
        <Text dimColor>ctrl+o back</Text>
      </Box>
    );
  const summary = summarizeToolCall({
    callId: shown.callId,
    toolName: shown.toolName,
    arguments: shown.arguments,
    output: "",
  });
  const end = Math.min(lines.length, top + height);
  return (
    <Box borderStyle="round" borderColor="cyan" paddingX={1} flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>{summary.label}</Text> {summary.target}
        <Text dimColor>
          {" "}
          · call {index + 1} of {outputs.length} · {lines.length} {shown.isDiff ? "diff " : ""}line
          {lines.length === 1 ? "" : "s"}
        </Text>
      </Text>
      {lines.slice(top, end).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a window of lines, replaced as a whole
        <Text key={i} wrap="truncate-end" {...(shown.isDiff && diffColour(line))}>
          {line === "" ? " " : line}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {lines.length === 0 ? "(no output) · " : `lines ${top + 1}–${end} of ${lines.length} · `}
        {shown.cutChars > 0 ? `${shown.cutChars} characters past the end not kept · ` : ""}
        ↑↓ PgUp PgDn scroll · ←→ other calls · ctrl+o back
      </Text>
    </Box>
  );
}

function linesOf(output: string): string[] {
  if (output === "") return [];
  // A tab's width depends on its column; spaces keep the measured width exact.
  const lines = output.replace(/\t/g, "    ").split("\n");
  if (output.endsWith("\n")) lines.pop();
  return lines;
}

/** Added lines green, removed red, hunk headers cyan. */
function diffColour(line: string): { color?: string; dimColor?: boolean } {
  if (line.startsWith("+++") || line.startsWith("---")) return { dimColor: true };
  if (line.startsWith("+")) return { color: "green" };
  if (line.startsWith("-")) return { color: "red" };
  if (line.startsWith("@@")) return { color: "cyan" };
  return {};
}
