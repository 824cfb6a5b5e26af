import type { LayerInput, LayerResult, SpanEdit } from "./edit-types.js";
import { lineBreakAt } from "./eol.js";
import { type FileLine, fileLines, modelLines, replaceLines } from "./file-lines.js";
import { lineKey } from "./normalize.js";
import { reindent } from "./reindent.js";

const blank = (line: string): boolean => line.trim() === "";

interface Variant {
  readonly oldLines: readonly string[];
  readonly newLines: readonly string[];
}

// old_string as written, then without the blank lines models add around a block; new_string loses
// the same blank lines where it has them, so they are not added to the file either.
function variants(oldLines: readonly string[], newLines: readonly string[]): Variant[] {
  const out: Variant[] = [{ oldLines, newLines }];
  let lead = 0;
  while (lead < oldLines.length && blank(oldLines[lead] as string)) lead++;
  let trail = 0;
  while (trail < oldLines.length - lead && blank(oldLines[oldLines.length - 1 - trail] as string)) trail++;
  if (lead === 0 && trail === 0) return out;
  let newLead = 0;
  while (newLead < Math.min(lead, newLines.length) && blank(newLines[newLead] as string)) newLead++;
  let newTrail = 0;
  while (
    newTrail < Math.min(trail, newLines.length - newLead) &&
    blank(newLines[newLines.length - 1 - newTrail] as string)
  )
    newTrail++;
  out.push({
    oldLines: oldLines.slice(lead, oldLines.length - trail),
    newLines: newLines.slice(newLead, newLines.length - newTrail),
  });
  return out;
}

/**
 * Layer 4: whole lines compared with indentation and trailing whitespace ignored; the new lines
 * are re-indented to the file's indentation (tabs included).
 */
export function matchFlexible(input: LayerInput): LayerResult {
  const lines = fileLines(input.body);
  const keys = lines.map((l) => lineKey(l.text, "unicode"));
  for (const { oldLines, newLines } of variants(modelLines(input.oldText), modelLines(input.newText))) {
    if (oldLines.length === 0 || oldLines.every(blank)) continue;
    const oldKeys = oldLines.map((l) => lineKey(l, "unicode"));
    const edits: SpanEdit[] = [];
    for (let i = 0; i + oldKeys.length <= lines.length; i++) {
      if (!oldKeys.every((k, j) => keys[i + j] === k)) continue;
      const matched = lines.slice(i, i + oldKeys.length).map((l: FileLine) => l.text);
      const replacement = reindent(newLines, oldLines, matched);
      const eol = lineBreakAt(input.body, (lines[i] as FileLine).start, "\n");
      edits.push(replaceLines(lines, i, i + oldKeys.length - 1, replacement, eol));
      i += oldKeys.length - 1;
    }
    if (edits.length > 0) return { edits };
  }
  return { edits: [] };
}
