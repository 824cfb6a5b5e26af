/** The line break of the line that contains `offset`: the file's own, even in a mixed file. */
export function lineBreakAt(body: string, offset: number, fallback: "\n" | "\r\n"): "\n" | "\r\n" {
  const next = body.indexOf("\n", offset);
  if (next !== -1) return next > 0 && body[next - 1] === "\r" ? "\r\n" : "\n";
  const previous = body.lastIndexOf("\n", Math.max(0, offset - 1));
  if (previous !== -1) return previous > 0 && body[previous - 1] === "\r" ? "\r\n" : "\n";
  return fallback;
}

/** LF text with its line breaks turned into `eol`. */
export function withLineBreaks(text: string, eol: "\n" | "\r\n"): string {
  return eol === "\n" ? text : text.replaceAll("\n", "\r\n");
}

/** Offset of the start of the line containing `offset`. */
export function lineStart(body: string, offset: number): number {
  return offset === 0 ? 0 : body.lastIndexOf("\n", offset - 1) + 1;
}

/** 1-based line number of an offset. */
export function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
