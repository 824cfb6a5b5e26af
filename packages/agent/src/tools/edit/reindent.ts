import { indentOf } from "./normalize.js";

/**
 * Moves new lines from the indentation the model used in old_string to the indentation the file
 * really has: a new line indented like some old line gets that line's file indentation (this
 * also converts spaces to tabs); other lines shift by the difference at the first old line.
 */
export function reindent(
  newLines: readonly string[],
  oldLines: readonly string[],
  fileLines: readonly string[],
): string[] {
  const ref = oldLines.findIndex((line) => line.trim() !== "");
  if (ref === -1) return [...newLines];
  const byIndent = new Map<string, string>();
  oldLines.forEach((line, j) => {
    const own = indentOf(line);
    if (line.trim() !== "" && !byIndent.has(own)) byIndent.set(own, indentOf(fileLines[j] ?? ""));
  });
  const from = indentOf(oldLines[ref] as string);
  const to = indentOf(fileLines[ref] as string);
  return newLines.map((line) => {
    if (line.trim() === "") return line;
    const own = indentOf(line);
    const mapped = byIndent.get(own);
    if (mapped !== undefined) return mapped + line.slice(own.length);
    if (line.startsWith(from)) return to + line.slice(from.length);
    if (to.startsWith(from)) return to.slice(from.length) + line;
    if (from.startsWith(to)) {
      // Outdented relative to the reference line: remove as much as the file is shallower.
      return line.slice(Math.min(own.length, from.length - to.length));
    }
    return to + line.slice(own.length);
  });
}
