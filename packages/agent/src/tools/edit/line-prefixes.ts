// read_file's own numbering: the line number right-aligned, " | ", then the line ("  88 | text").
// A pasted empty line may have lost the space after the bar.
const PREFIX = /^ *(\d+) \|(?: |$)/;

/**
 * old_string and new_string without read_file's "  88 | " line prefixes, when every line of
 * old_string carries one and the numbers run on one by one; undefined otherwise. new_string loses
 * the prefix on the lines that have one (new lines are often written without).
 */
export function withoutLinePrefixes(
  oldText: string,
  newText: string,
): { oldText: string; newText: string } | undefined {
  const oldLines = oldText.split("\n");
  if (oldLines.length > 1 && oldLines[oldLines.length - 1] === "") oldLines.pop();
  let expected: number | undefined;
  for (const line of oldLines) {
    const m = PREFIX.exec(line);
    if (m === null) return undefined;
    const n = Number(m[1]);
    if (expected !== undefined && n !== expected) return undefined;
    expected = n + 1;
  }
  const strip = (text: string): string =>
    text
      .split("\n")
      .map((line) => {
        const m = PREFIX.exec(line);
        return m === null ? line : line.slice(m[0].length);
      })
      .join("\n");
  return { oldText: strip(oldText), newText: strip(newText) };
}
