/** One line of a file's text with where it sits: content [start, end), next line at `next`. */
export interface FileLine {
  /** The line without its line break (a CR before the LF is not part of it). */
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Offset just after the line break (= end for the last line without one). */
  readonly next: number;
}

/** The lines of a text with their offsets; a final line break does not start an extra line. */
export function fileLines(body: string): FileLine[] {
  const lines: FileLine[] = [];
  let i = 0;
  while (i < body.length) {
    const lf = body.indexOf("\n", i);
    const stop = lf === -1 ? body.length : lf;
    const end = stop > i && body[stop - 1] === "\r" ? stop - 1 : stop;
    lines.push({ text: body.slice(i, end), start: i, end, next: lf === -1 ? stop : lf + 1 });
    if (lf === -1) break;
    i = lf + 1;
  }
  return lines;
}

/** Lines of LF text the model wrote; a final line break means "whole lines", not one more line. */
export function modelLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The span edit that puts `replacement` lines in place of lines [first, last] (deleting them when empty). */
export function replaceLines(
  lines: readonly FileLine[],
  first: number,
  last: number,
  replacement: readonly string[],
  eol: string,
): { start: number; end: number; text: string } {
  const a = lines[first] as FileLine;
  const b = lines[last] as FileLine;
  if (replacement.length > 0) return { start: a.start, end: b.end, text: replacement.join(eol) };
  // Deleting whole lines takes their line break with them (the previous one at the end of file).
  if (b.next > b.end) return { start: a.start, end: b.next, text: "" };
  const before = first > 0 ? (lines[first - 1] as FileLine).end : a.start;
  return { start: before, end: b.end, text: "" };
}
