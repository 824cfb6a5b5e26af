/** The text that replaces the end of a line cut for length: `… [line cut: N more characters]`. */
export function lineCutMarker(moreCharacters: number): string {
  return `… [line cut: ${moreCharacters} more characters]`;
}

const MARKER_AT_END = /\u2026 \[line cut: \d+ more characters\]$/;

/** The largest index at most `end` that does not leave half a surrogate pair before it. */
export function surrogateSafeEnd(s: string, end: number): number {
  const c = s.charCodeAt(end - 1);
  return end > 0 && c >= 0xd800 && c <= 0xdbff ? end - 1 : end;
}

/**
 * Cuts a line to `max` characters plus lineCutMarker; a line already cut that way is returned
 * unchanged, so a tool may cut what an environment has cut.
 */
export function cutLongLine(line: string, max: number): string {
  if (line.length <= max) return line;
  const marker = line.lastIndexOf("… [line cut: ");
  if (marker >= max - 1 && marker <= max && MARKER_AT_END.test(line)) return line;
  const end = surrogateSafeEnd(line, max);
  return line.slice(0, end) + lineCutMarker(line.length - end);
}
