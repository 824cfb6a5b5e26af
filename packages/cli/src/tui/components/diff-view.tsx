import { Box, Text } from "ink";
import type { ReactNode } from "react";

/** One rendered line of a diff. */
export interface DiffLine {
  readonly kind: "file" | "hunk" | "add" | "remove" | "context" | "note";
  readonly text: string;
  /** Line number in the new file (context, add) or the old one (remove). */
  readonly number?: number;
}

/**
 * Parses a unified diff (or a v4a patch, whose "*** Update File:" lines become file headers)
 * into lines with line numbers taken from the hunk headers.
 */
export function parseDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  // Lines left in the current unified hunk: inside it, "--- x" is a removed line, not a header.
  let oldLeft = 0;
  let newLeft = 0;
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const inHunk = oldLeft > 0 || newLeft > 0;
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!inHunk && hunk) {
      oldLine = Number(hunk[1]);
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLine = Number(hunk[3]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      out.push({ kind: "hunk", text: line });
    } else if (inHunk) {
      if (line.startsWith("+")) {
        newLeft--;
        out.push({ kind: "add", text: line.slice(1), number: newLine++ });
      } else if (line.startsWith("-")) {
        oldLeft--;
        out.push({ kind: "remove", text: line.slice(1), number: oldLine++ });
      } else if (line.startsWith("\\")) {
        out.push({ kind: "note", text: line });
      } else {
        oldLeft--;
        newLeft--;
        oldLine++;
        out.push({ kind: "context", text: line.slice(1), number: newLine++ });
      }
    } else if (line.startsWith("+++ ") || line.startsWith("--- ")) {
      // "+++" names the file; for a deletion it is /dev/null and the "---" line is used.
      const path = line
        .slice(4)
        .replace(/^[ab]\//, "")
        .replace(/\t.*$/, "");
      if (path !== "/dev/null") out.push({ kind: "file", text: path });
    } else if (/^\*\*\* (Add|Update|Delete) File: |^\*\*\* Move to: /.test(line)) {
      out.push({ kind: "file", text: line.slice(4) });
    } else if (/^(\*\*\* |diff |index |new file|deleted file|similarity|rename )/.test(line)) {
      // Envelope lines carry nothing a reader needs here.
    } else if (line.startsWith("@@")) {
      out.push({ kind: "hunk", text: line });
    } else if (line.startsWith("+")) {
      out.push({ kind: "add", text: line.slice(1) });
    } else if (line.startsWith("-")) {
      out.push({ kind: "remove", text: line.slice(1) });
    } else if (line.startsWith("\\")) {
      out.push({ kind: "note", text: line });
    } else {
      out.push({ kind: "context", text: line.startsWith(" ") ? line.slice(1) : line });
    }
  }
  // "--- a/x" followed by "+++ b/x" names one file twice.
  return out.filter(
    (l, i) => !(l.kind === "file" && out[i + 1]?.kind === "file" && out[i + 1]?.text === l.text),
  );
}

/** A coloured diff: additions green, removals red, hunks cyan, context dim; long diffs collapsed, scrollable by `offset`. */
export function DiffView({
  diff,
  maxLines = 24,
  showFiles = true,
  compact = false,
  offset = 0,
}: {
  readonly diff: string;
  readonly maxLines?: number;
  /** Diff lines scrolled past at the top (a "↑ N lines above" line takes their place). */
  readonly offset?: number;
  readonly showFiles?: boolean;
  /** Hunk headers become a dim "⋮" between hunks (line numbers already say where). */
  readonly compact?: boolean;
}): ReactNode {
  const lines = parseDiff(diff)
    .filter((l) => showFiles || l.kind !== "file")
    .flatMap((l, i, all): DiffLine[] => {
      if (!compact || l.kind !== "hunk") return [l];
      const previous = all[i - 1];
      return previous === undefined || previous.kind === "file" ? [] : [{ kind: "note", text: "⋮" }];
    });
  const from = Math.max(0, Math.min(offset, lines.length - maxLines));
  const shown = lines.slice(from, from + maxLines);
  const width = Math.max(1, ...shown.map((l) => String(l.number ?? "").length));
  return (
    <Box flexDirection="column">
      {from > 0 ? <Text dimColor>↑ {from} diff lines above</Text> : null}
      {shown.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of one finished diff never reorder
        <DiffRow key={i} line={line} width={width} />
      ))}
      {lines.length > from + shown.length ? (
        <Text dimColor>… {lines.length - from - shown.length} more diff lines</Text>
      ) : null}
    </Box>
  );
}

function DiffRow({ line, width }: { readonly line: DiffLine; readonly width: number }): ReactNode {
  const gutter = (line.number === undefined ? "" : String(line.number)).padStart(width);
  switch (line.kind) {
    case "file":
      return <Text bold>{line.text}</Text>;
    case "hunk":
      return <Text color="cyan">{line.text}</Text>;
    case "note":
      return <Text dimColor>{line.text}</Text>;
    case "add":
      return <Numbered gutter={gutter} sign="+ " text={line.text} color="green" />;
    case "remove":
      return <Numbered gutter={gutter} sign="- " text={line.text} color="red" />;
    case "context":
      return <Numbered gutter={gutter} sign="  " text={line.text} />;
  }
}

/**
 * A numbered diff line whose text wraps beside its gutter: continuation rows start under the
 * text, so the number column stays clear and readable at any width.
 */
function Numbered({
  gutter,
  sign,
  text,
  color,
}: {
  readonly gutter: string;
  readonly sign: string;
  readonly text: string;
  readonly color?: string;
}): ReactNode {
  return (
    <Box flexDirection="row">
      <Box flexShrink={0}>
        {color === undefined ? (
          <Text dimColor>
            {gutter} {sign}
          </Text>
        ) : (
          <Text color={color}>
            <Text dimColor>{gutter} </Text>
            {sign}
          </Text>
        )}
      </Box>
      <Box flexGrow={1} flexShrink={1}>
        {color === undefined ? <Text dimColor>{text}</Text> : <Text color={color}>{text}</Text>}
      </Box>
    </Box>
  );
}
