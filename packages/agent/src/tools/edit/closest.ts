import { lineKey } from "./normalize.js";

/** The window of file lines that looks most like a pattern that was not found. */
export interface Candidate {
  /** 0-based index of the first line of the window. */
  readonly start: number;
  readonly lines: readonly string[];
  /** 0..1: mean per-line similarity. */
  readonly similarity: number;
}

// Above this many line comparisons, only cheap equality scoring is used, to keep an error path
// on a huge file from taking seconds.
const FULL_SCORING_BUDGET = 2_000_000;

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Dice coefficient over character bigrams of the normalised lines (1 = same). */
export function lineSimilarity(a: string, b: string): number {
  const ka = lineKey(a, "unicode");
  const kb = lineKey(b, "unicode");
  if (ka === kb) return 1;
  if (ka.length < 2 || kb.length < 2) return 0;
  const ga = bigrams(ka);
  const gb = bigrams(kb);
  let common = 0;
  for (const [gram, count] of ga) common += Math.min(count, gb.get(gram) ?? 0);
  return (2 * common) / (ka.length - 1 + kb.length - 1);
}

/** The window of `lines` (same length as `pattern`) most similar to it, or undefined if none scores. */
export function closestCandidate(
  lines: readonly string[],
  pattern: readonly string[],
): Candidate | undefined {
  if (pattern.length === 0 || lines.length === 0) return undefined;
  const width = Math.min(pattern.length, lines.length);
  const windows = lines.length - width + 1;
  const full = windows * width <= FULL_SCORING_BUDGET;
  const score = (a: string, b: string): number =>
    full ? lineSimilarity(a, b) : lineKey(a, "unicode") === lineKey(b, "unicode") ? 1 : 0;
  const cache = new Map<string, number>();
  let best: Candidate | undefined;
  for (let start = 0; start < windows; start++) {
    let total = 0;
    for (let j = 0; j < width; j++) {
      const a = lines[start + j] as string;
      const b = pattern[j] as string;
      const key = `${j}\u0000${a}`;
      let s = cache.get(key);
      if (s === undefined) {
        s = score(a, b);
        if (cache.size < 100_000) cache.set(key, s);
      }
      total += s;
    }
    const similarity = total / pattern.length;
    if (similarity > 0 && (best === undefined || similarity > best.similarity)) {
      best = { start, lines: lines.slice(start, start + width), similarity };
    }
  }
  return best;
}
