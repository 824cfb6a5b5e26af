import { closestCandidate } from "./closest.js";
import { type EditReading, STRATEGY_NAMES } from "./edit-types.js";
import type { FileLinesView } from "./line-match.js";
import { indentOf } from "./normalize.js";
import { plainPunctuation } from "./typography.js";

const contentKey = (line: string): string =>
  plainPunctuation(line.slice(indentOf(line).length).trimEnd().normalize("NFC"));

// The window where most lines of old_string are the file's lines (content compared): found by
// searching the file for each line, so a refusal costs little even in a large file. Undefined
// when no line of old_string is in the file; then the closest lines are scored by similarity.
function closestByEqualLines(
  view: FileLinesView,
  old: readonly string[],
): { start: number; lines: readonly string[]; similarity: number } | undefined {
  const votes = new Map<number, number>();
  let counted = 0;
  old.forEach((line, j) => {
    const key = contentKey(line);
    if (key === "") return;
    counted++;
    for (const at of view.linesWithKey(key, true).slice(0, 1000)) {
      const start = at - j;
      if (start >= 0) votes.set(start, (votes.get(start) ?? 0) + 1);
    }
  });
  let best: [number, number] | undefined;
  for (const [start, n] of votes) {
    if (best === undefined || n > best[1] || (n === best[1] && start < best[0])) best = [start, n];
  }
  if (best === undefined) return undefined;
  const [start, n] = best;
  return { start, lines: view.lines.slice(start, start + old.length), similarity: n / counted };
}

// Line comparisons above which similarity scoring is skipped (it costs about a microsecond each).
const SIMILARITY_BUDGET = 200_000;

// Below this mean line similarity the closest lines are not worth showing as "what you meant".
const SHOW_ABOVE = 0.3;

/** Why old_string was not found, and what to send instead: the closest lines, numbered and marked. */
export function notFoundMessage(
  view: FileLinesView,
  readings: ReadonlyArray<{ readonly reading: EditReading; readonly oldText: string }>,
  where: string,
  readingNames: Readonly<Record<EditReading, string>>,
): { message: string; line?: number } {
  const tried = [
    "exact",
    "line endings",
    ...Object.entries(STRATEGY_NAMES)
      .filter(([k]) => k !== "exact" && k !== "line-endings")
      .map(([, name]) => name),
  ].join("; ");
  const also = readings.filter((r) => r.reading !== "as-written").map((r) => readingNames[r.reading]);
  const head = `old_string was not found in ${where}, and no layer makes it match (tried: ${tried}${also.length > 0 ? `; also with ${also.join(", ")}` : ""}). Nothing was changed.`;
  let best:
    | { start: number; lines: readonly string[]; similarity: number; old: readonly string[] }
    | undefined;
  const fileLines = view.lines;
  for (const r of readings) {
    const old = r.oldText.split("\n");
    if (old.length > 1 && old[old.length - 1] === "") old.pop();
    let c = closestByEqualLines(view, old);
    // Few equal lines: score by similarity too, where the file is small enough for it to be quick.
    if ((c === undefined || c.similarity < 0.5) && fileLines.length * old.length <= SIMILARITY_BUDGET) {
      const scored = closestCandidate(fileLines, old);
      if (scored !== undefined && (c === undefined || scored.similarity > c.similarity)) c = scored;
    }
    if (c !== undefined && (best === undefined || c.similarity > best.similarity)) best = { ...c, old };
  }
  if (best === undefined || best.similarity < SHOW_ABOVE) {
    return {
      message: `${head}\nNo lines of ${where} look like old_string. Read the file again (read_file) and copy old_string exactly from it, including whitespace.`,
    };
  }
  const first = best.start + 1;
  const last = best.start + best.lines.length;
  const width = String(last).length;
  const marks: string[] = [];
  const theirs: string[] = [];
  best.lines.forEach((line, j) => {
    const mine = best.old[j] ?? "";
    const n = String(first + j).padStart(width);
    const differs = contentKey(line) !== contentKey(mine);
    const spacing = !differs && line.trimEnd() !== mine.trimEnd();
    marks.push(`${differs ? ">" : spacing ? "~" : " "} ${n} | ${line}`);
    if (differs) theirs.push(`for line ${first + j}, old_string has: ${mine}`);
  });
  const legend =
    theirs.length > 0
      ? `The lines marked ">" differ from old_string in more than whitespace; old_string had:\n${theirs.join("\n")}\nThe file's lines are`
      : `No line differs in more than whitespace; the lines marked "~" have other whitespace than old_string in a way no single shift or tab/space conversion explains. The file's lines are`;
  return {
    line: first,
    message: `${head}\nThe closest lines are ${first}-${last} of ${where}. ${legend}:\n${marks.join("\n")}\nTo make this edit, send as old_string lines ${first}-${last} exactly as they are above (without the marker, the line number and " | "), and as new_string the same lines with your change.`,
  };
}
