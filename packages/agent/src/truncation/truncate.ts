import { limitFor, type TruncationConfig, type TruncationMode } from "./limits.js";

/** The head_tail marker, verbatim from the spec. */
export function headTailMarker(removed: number): string {
  return `\n\n[WARNING: Tool output was truncated. ${removed} characters were removed from the middle. The full output is available in the event stream. If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n`;
}

/** The tail marker, verbatim from the spec. */
export function tailMarker(removed: number): string {
  return `[WARNING: Tool output was truncated. First ${removed} characters were removed. The full output is available in the event stream.]\n\n`;
}

/** The line-omission marker, verbatim from the spec. */
export function linesMarker(omitted: number): string {
  return `\n[... ${omitted} lines omitted ...]\n`;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** An end index for a head cut that does not leave half a surrogate pair. */
function headEnd(s: string, end: number): number {
  return end > 0 && isHigh(s.charCodeAt(end - 1)) ? end - 1 : end;
}

/** A start index for a tail cut that does not begin with half a surrogate pair. */
function tailStart(s: string, start: number): number {
  return start < s.length && isLow(s.charCodeAt(start)) ? start + 1 : start;
}

/** Character truncation: keeps at most maxChars characters of the original plus a marker. */
export function truncateChars(output: string, maxChars: number, mode: TruncationMode): string {
  if (output.length <= maxChars) return output;
  if (mode === "tail") {
    const start = tailStart(output, output.length - maxChars);
    return tailMarker(start) + output.slice(start);
  }
  const half = Math.floor(maxChars / 2);
  const end = headEnd(output, half);
  const start = tailStart(output, output.length - half);
  return output.slice(0, end) + headTailMarker(start - end) + output.slice(start);
}

/** Line truncation: keeps the first half and the last half of maxLines lines. */
export function truncateLines(output: string, maxLines: number): string {
  // Count first so short outputs are never split.
  if (countLines(output) <= maxLines) return output;
  const lines = output.split("\n");
  const head = Math.floor(maxLines / 2);
  const tail = maxLines - head;
  return (
    lines.slice(0, head).join("\n") +
    linesMarker(lines.length - head - tail) +
    lines.slice(lines.length - tail).join("\n")
  );
}

function countLines(output: string): number {
  let count = 1;
  for (let i = output.indexOf("\n"); i !== -1; i = output.indexOf("\n", i + 1)) count++;
  return count;
}

/**
 * Both limits apply: the lines kept are taken from what the character cut kept, and the markers
 * report what was really removed from the original (lines and characters), with the character
 * warning kept. head_tail keeps the first and last lines around one gap; tail keeps the last lines.
 */
function truncateBoth(output: string, maxChars: number, maxLines: number, mode: TruncationMode): string {
  const total = countLines(output);
  if (mode === "tail") {
    const kept = output
      .slice(tailStart(output, output.length - maxChars))
      .split("\n")
      .slice(-maxLines);
    const text = kept.join("\n");
    return `${tailMarker(output.length - text.length)}[... ${total - kept.length} lines omitted ...]\n${text}`;
  }
  const half = Math.floor(maxChars / 2);
  const headLines = output
    .slice(0, headEnd(output, half))
    .split("\n")
    .slice(0, Math.floor(maxLines / 2));
  const tailLines = output
    .slice(tailStart(output, output.length - half))
    .split("\n")
    .slice(-(maxLines - Math.floor(maxLines / 2)));
  const head = headLines.join("\n");
  const tail = tailLines.join("\n");
  const omitted = Math.max(0, total - headLines.length - tailLines.length);
  return (
    head + linesMarker(omitted) + headTailMarker(output.length - head.length - tail.length).slice(2) + tail
  );
}

/**
 * Shortens a tool's output for the model: characters first (so a 10 MB single line is cut
 * before any split), then lines, with the tool's default limits or the config's overrides. When
 * both limits apply, the markers give the true numbers removed and the character warning stays.
 */
export function truncateToolOutput(output: string, toolName: string, config?: TruncationConfig): string {
  const limit = limitFor(toolName, config);
  const chars = truncateChars(output, limit.maxChars, limit.mode);
  if (limit.maxLines === undefined) return chars;
  if (chars === output) return truncateLines(output, limit.maxLines);
  // The marker's own lines do not count: only the original's lines decide the line limit.
  if (countLines(output) <= limit.maxLines || countLines(chars) <= limit.maxLines) return chars;
  return truncateBoth(output, limit.maxChars, limit.maxLines, limit.mode);
}
