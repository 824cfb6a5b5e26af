import { closestCandidate, numberLines } from "../edit/closest.js";
import { seekLines } from "../edit/match-lines.js";
import { decodeText, encodeText, splitLines, TOLERANCE_NAMES, type Tolerance } from "../edit/normalize.js";
import { reindent } from "../edit/reindent.js";
import { PatchApplyError, type PatchChunk } from "./types.js";

/** The new content of an updated file and the loosest tolerance any hunk needed. */
export interface ChunksResult {
  readonly content: string;
  /** Hunks (1-based) that matched only under a fuzzy tolerance. */
  readonly fuzzy: readonly { readonly hunk: number; readonly tolerance: Tolerance }[];
}

interface Replacement {
  readonly start: number;
  readonly length: number;
  readonly lines: readonly string[];
}

/**
 * Applies an Update's hunks to a file's text, in file order, each searched after the previous
 * one (codex semantics), keeping the file's line ending and BOM. Throws
 * PatchApplyError naming the hunk and the lines that were not found.
 */
export function applyChunks(original: string, chunks: readonly PatchChunk[], path: string): ChunksResult {
  const { text, eol, bom } = decodeText(original);
  const lines = splitLines(text);
  const endsWithBreak = text === "" || text.endsWith("\n");
  const replacements: Replacement[] = [];
  const fuzzy: { hunk: number; tolerance: Tolerance }[] = [];
  let cursor = 0;

  chunks.forEach((chunk, i) => {
    const hunk = i + 1;
    const label = `${path}: hunk ${hunk} of ${chunks.length}`;
    for (const anchor of chunk.anchors) {
      const found = seekLines(lines, [anchor], cursor);
      if (found === undefined) {
        throw new PatchApplyError(
          path,
          `${label}: the context line '@@ ${anchor}' was not found${cursor > 0 ? ` after line ${cursor}` : ""}.`,
          hunk,
        );
      }
      cursor = found.index + 1;
    }
    if (chunk.oldLines.length === 0) {
      // Pure addition: after the anchor when there is one, else at the end of the file.
      const at = chunk.anchors.length > 0 && !chunk.atEndOfFile ? cursor : lines.length;
      replacements.push({ start: at, length: 0, lines: chunk.newLines });
      cursor = at;
      return;
    }
    let pattern = chunk.oldLines;
    let replacement = chunk.newLines;
    let contextIndex = chunk.contextIndex;
    let found = seekLines(lines, pattern, cursor, chunk.atEndOfFile);
    if (found === undefined && pattern.at(-1) === "") {
      // A trailing empty context line usually stands for the file's final newline.
      pattern = pattern.slice(0, -1);
      if (replacement.at(-1) === "") {
        replacement = replacement.slice(0, -1);
        contextIndex = contextIndex.slice(0, -1);
      }
      found = seekLines(lines, pattern, cursor, chunk.atEndOfFile);
    }
    if (found === undefined) throw notFound(label, path, hunk, lines, chunk.oldLines, cursor);
    if (found.tolerance !== "exact") {
      fuzzy.push({ hunk, tolerance: found.tolerance });
      replacement = fitToFile(
        lines.slice(found.index, found.index + pattern.length),
        pattern,
        replacement,
        contextIndex,
        found.tolerance,
      );
    }
    replacements.push({ start: found.index, length: pattern.length, lines: replacement });
    cursor = found.index + pattern.length;
  });

  const out: string[] = [];
  let next = 0;
  for (const r of replacements) {
    for (let i = next; i < r.start; i++) out.push(lines[i] as string);
    out.push(...r.lines);
    next = r.start + r.length;
  }
  for (let i = next; i < lines.length; i++) out.push(lines[i] as string);
  let updated = out.join("\n");
  // As in codex, lines a hunk wrote at the end of the file end with a line break; a file whose
  // last line no hunk touched keeps its final-newline state.
  const touchedEnd = replacements.some((r) => r.start + r.length >= lines.length);
  if (out.length > 0 && (endsWithBreak || touchedEnd)) updated += "\n";
  return { content: encodeText(updated, eol, bom), fuzzy };
}

/**
 * After a fuzzy match, context lines keep the file's own text (the patch's copy differed only in
 * whitespace or punctuation), and added lines move to the file's indentation when that differed.
 */
function fitToFile(
  matched: readonly string[],
  pattern: readonly string[],
  replacement: readonly string[],
  contextIndex: readonly number[],
  tolerance: Tolerance,
): string[] {
  const added = tolerance === "trailing-whitespace" ? replacement : reindent(replacement, pattern, matched);
  return added.map((line, i) => {
    const from = contextIndex[i] ?? -1;
    return from >= 0 ? (matched[from] as string) : line;
  });
}

function notFound(
  label: string,
  path: string,
  hunk: number,
  lines: readonly string[],
  expected: readonly string[],
  cursor: number,
): PatchApplyError {
  const tried = Object.values(TOLERANCE_NAMES).join(", ");
  const shown = expected.map((line) => `  ${line}`).join("\n");
  const candidate = closestCandidate(lines, expected);
  const hint =
    candidate === undefined
      ? "No similar lines were found in the file."
      : `Closest candidate (lines ${candidate.start + 1}-${candidate.start + candidate.lines.length}, ${Math.round(candidate.similarity * 100)}% similar):\n${numberLines(candidate.lines, candidate.start + 1)}`;
  return new PatchApplyError(
    path,
    `${label}: these lines were not found${cursor > 0 ? ` after line ${cursor}` : ""} (tried: ${tried}):\n${shown}\n${hint}`,
    hunk,
  );
}
