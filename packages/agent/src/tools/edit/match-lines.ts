import { lineKey, type Tolerance } from "./normalize.js";

/** Where a run of pattern lines was found, and under which tolerance. */
export interface LineMatch {
  readonly index: number;
  readonly tolerance: Tolerance;
}

/** The passes apply_patch tries in order (codex's seek_sequence), strictest first. */
export const PATCH_TOLERANCES: readonly Tolerance[] = [
  "exact",
  "trailing-whitespace",
  "indentation",
  "unicode",
];

function matchesAt(
  lines: readonly string[],
  pattern: readonly string[],
  at: number,
  tolerance: Tolerance,
): boolean {
  for (let j = 0; j < pattern.length; j++) {
    if (lineKey(lines[at + j] as string, tolerance) !== lineKey(pattern[j] as string, tolerance)) {
      return false;
    }
  }
  return true;
}

/**
 * The first index at or after `start` where `pattern` occurs in `lines`, trying each tolerance in
 * turn over the whole range before loosening. With `atEnd`, only the position that ends at the
 * last line is tried first, then the rest of the range. An empty pattern matches at `start`.
 */
export function seekLines(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  atEnd = false,
  tolerances: readonly Tolerance[] = PATCH_TOLERANCES,
): LineMatch | undefined {
  if (pattern.length === 0) return { index: start, tolerance: "exact" };
  const last = lines.length - pattern.length;
  if (last < start) return undefined;
  if (atEnd) {
    for (const tolerance of tolerances) {
      if (matchesAt(lines, pattern, last, tolerance)) return { index: last, tolerance };
    }
  }
  for (const tolerance of tolerances) {
    for (let i = start; i <= last; i++) {
      if (matchesAt(lines, pattern, i, tolerance)) return { index: i, tolerance };
    }
  }
  return undefined;
}
