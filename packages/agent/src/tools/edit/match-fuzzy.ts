import { distance } from "fastest-levenshtein";
import type { LayerInput, LayerResult } from "./edit-types.js";
import { lineBreakAt } from "./eol.js";
import { fileLines, modelLines, replaceLines } from "./file-lines.js";
import { reindent } from "./reindent.js";

/** Largest weighted edit distance accepted, as a share of old_string's length. */
export const FUZZY_THRESHOLD = 0.1;
// A whitespace-only difference costs this much of a character difference.
const WHITESPACE_WEIGHT = 0.1;
// Short strings match too much by accident: in "let x = 3;" one character is the whole point.
const MIN_LENGTH = 20;
// Window count x old_string length squared above which the search would take seconds.
const MAX_WORK = 400_000_000;

const stripWhitespace = (s: string): string => s.replace(/\s+/g, "");

/**
 * Layer 6: the window of file lines closest to old_string by Levenshtein distance, whitespace
 * differences weighted low, accepted within FUZZY_THRESHOLD. Only the best window is returned;
 * `tie` says another window, not overlapping it, scored the same.
 */
export function matchFuzzy(input: LayerInput): LayerResult {
  const oldLines = modelLines(input.oldText).map((l) => l.trimEnd());
  const search = oldLines.join("\n");
  if (stripWhitespace(search).length < MIN_LENGTH) return { edits: [] };
  const lines = fileLines(input.body);
  const n = oldLines.length;
  if (lines.length < n || lines.length * search.length ** 2 > MAX_WORK) return { edits: [] };
  const searchStripped = stripWhitespace(search);
  const maxLengthGap = search.length * (FUZZY_THRESHOLD / WHITESPACE_WEIGHT);
  const scored: { index: number; score: number }[] = [];
  for (let i = 0; i + n <= lines.length; i++) {
    const window = lines
      .slice(i, i + n)
      .map((l) => l.text.trimEnd())
      .join("\n");
    if (Math.abs(window.length - search.length) > maxLengthGap) continue;
    const raw = distance(window, search);
    const core = distance(stripWhitespace(window), searchStripped);
    const weighted = core + Math.max(0, raw - core) * WHITESPACE_WEIGHT;
    const score = weighted / search.length;
    if (score <= FUZZY_THRESHOLD) scored.push({ index: i, score });
  }
  if (scored.length === 0) return { edits: [] };
  scored.sort((a, b) => a.score - b.score || a.index - b.index);
  const best = scored[0] as { index: number; score: number };
  const tie = scored.some((c) => c.score === best.score && Math.abs(c.index - best.index) >= n);
  const matched = lines.slice(best.index, best.index + n).map((l) => l.text);
  const replacement = reindent(modelLines(input.newText), modelLines(input.oldText), matched);
  const eol = lineBreakAt(input.body, lines[best.index]?.start ?? 0, "\n");
  return {
    edits: [replaceLines(lines, best.index, best.index + n - 1, replacement, eol)],
    similarity: 1 - best.score,
    tie,
  };
}
