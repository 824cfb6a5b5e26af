import { closestCandidate } from "./closest.js";
import { type EditReading, STRATEGY_NAMES } from "./edit-types.js";
import { indentOf } from "./normalize.js";
import { plainPunctuation } from "./typography.js";

const contentKey = (line: string): string =>
  plainPunctuation(line.slice(indentOf(line).length).trimEnd().normalize("NFC"));

// Below this mean line similarity the closest lines are not worth showing as "what you meant".
const SHOW_ABOVE = 0.3;

/** Why old_string was not found, and what to send instead: the closest lines, numbered and marked. */
export function notFoundMessage(
  fileLines: readonly string[],
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
  for (const r of readings) {
    const old = r.oldText.split("\n");
    if (old.length > 1 && old[old.length - 1] === "") old.pop();
    const c = closestCandidate(fileLines, old);
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
