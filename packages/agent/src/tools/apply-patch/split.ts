import type { LineKeys, MatchLayer } from "./layers.js";
import { keyOf } from "./layers.js";
import { type HunkLine, hunkBody } from "./refusal.js";
import type { PatchChunk } from "./types.js";

/** One piece of a hunk that was written as several without @@ lines between them. */
export interface HunkPiece {
  /** Where its old lines start in the file, and how many there are. */
  readonly start: number;
  readonly length: number;
  /** The lines that replace them: the file's context lines and the hunk's added lines. */
  readonly lines: readonly string[];
}

// The layers a split hunk may be found under: its lines must be the file's, but for trailing whitespace.
const SPLIT_LAYERS: readonly MatchLayer[] = ["exact", "trailing-whitespace"];

// Counting stops at two: one placement is proof, two are ambiguity.
const MANY = 2;

/**
 * Places a hunk that fits nowhere in one piece as several pieces, as when the @@ lines between
 * hunks were left out: the hunk may be cut only between two context lines with no added line
 * between them, each piece must change something and fit the file in order after `from` with
 * at least one line between pieces, and exactly one such placement must exist. Returns the
 * pieces, or undefined when there is no placement or more than one.
 */
export function splitHunk(keys: LineKeys, chunk: PatchChunk, from: number): HunkPiece[] | undefined {
  const body = hunkBody(chunk);
  const old = chunk.oldLines;
  const m = old.length;
  const n = keys.lines.length;
  if (m < 2 || n === 0 || (n - from) * m > 4_000_000) return undefined;
  // For each old line: removed or not, added lines right before it, and whether a cut may precede it.
  const removed = new Array<boolean>(m).fill(false);
  const addedBefore = new Array<number>(m).fill(0);
  let addedAfterLast = 0;
  let pendingAdds = 0;
  for (const line of body) {
    if (line.tag === "+") {
      pendingAdds++;
      continue;
    }
    const j = line.old as number;
    removed[j] = line.tag === "-";
    addedBefore[j] = pendingAdds;
    pendingAdds = 0;
  }
  addedAfterLast = pendingAdds;
  const changes = (j: number) => removed[j] === true || (addedBefore[j] ?? 0) > 0;
  const cutBefore = (j: number) => j > 0 && !removed[j - 1] && !removed[j] && addedBefore[j] === 0;
  if (!old.some((_, j) => cutBefore(j))) return undefined;

  for (const layer of SPLIT_LAYERS) {
    const fileKeys = keys.of(layer);
    const patternKeys = old.map((line) => keyOf(line, layer));
    // A line the file does not have at all (a stale line) rules out every placement.
    const present = new Set(patternKeys);
    for (let p = from; p < n && present.size > 0; p++) present.delete(fileKeys[p] as string);
    if (present.size > 0) continue;
    // ways[j][state * n + p]: placements of old lines 0..j with line j at p; state 1 when the
    // piece that line j is in already changes something.
    const ways: Uint8Array[] = [];
    for (let j = 0; j < m; j++) {
      const row = new Uint8Array(2 * n);
      const key = patternKeys[j];
      const c = changes(j) ? 1 : 0;
      if (j === 0) {
        for (let p = from; p < n; p++) if (fileKeys[p] === key) row[c * n + p] = 1;
      } else {
        const prev = ways[j - 1] as Uint8Array;
        // Placements of line j-1 that end a piece which changes something, at positions < p - 1.
        let before = 0;
        for (let p = from; p < n; p++) {
          if (p - 2 >= from) before = Math.min(MANY, before + (prev[n + p - 2] as number));
          if (fileKeys[p] !== key) continue;
          for (let state = 0; state < 2; state++) {
            const joined = p > 0 ? (prev[state * n + p - 1] as number) : 0;
            if (joined > 0) {
              const to = (state === 1 || c === 1 ? 1 : 0) * n + p;
              row[to] = Math.min(MANY, (row[to] as number) + joined);
            }
          }
          if (before > 0 && cutBefore(j))
            row[c * n + p] = Math.min(MANY, (row[c * n + p] as number) + before);
        }
      }
      ways.push(row);
      if (row.indexOf(1) === -1 && row.indexOf(MANY) === -1) break;
    }
    if (ways.length < m) continue;
    const last = ways[m - 1] as Uint8Array;
    let total = 0;
    let end = -1;
    let endState = -1;
    for (let state = 0; state < 2; state++) {
      if (state === 0 && addedAfterLast === 0) continue;
      for (let p = from; p < n; p++) {
        const count = last[state * n + p] as number;
        if (count > 0) {
          total += count;
          end = p;
          endState = state;
        }
      }
    }
    if (total === 0) continue;
    if (total > 1) return undefined;
    // One placement: walk it back to find where each old line went.
    const at = new Array<number>(m).fill(-1);
    let p = end;
    let state = endState;
    for (let j = m - 1; j >= 0; j--) {
      at[j] = p;
      if (j === 0) break;
      const prev = ways[j - 1] as Uint8Array;
      const c = changes(j) ? 1 : 0;
      const joinedFrom = [0, 1].find(
        (s) => p > 0 && (prev[s * n + p - 1] as number) > 0 && (s === 1 || c === 1 ? 1 : 0) === state,
      );
      if (joinedFrom !== undefined) {
        p -= 1;
        state = joinedFrom;
        continue;
      }
      let q = p - 2;
      while (q >= from && (prev[n + q] as number) === 0) q--;
      p = q;
      state = 1;
    }
    if (at.every((p, j) => j === 0 || p === (at[j - 1] as number) + 1)) return undefined;
    return piecesOf(body, at, keys.lines);
  }
  return undefined;
}

/** The pieces of a placed hunk; context lines keep the file's text. */
function piecesOf(body: readonly HunkLine[], at: readonly number[], file: readonly string[]): HunkPiece[] {
  const pieces: HunkPiece[] = [];
  let current: { start: number; length: number; lines: string[] } | undefined;
  let pendingAdds: string[] = [];
  for (const line of body) {
    if (line.tag === "+") {
      pendingAdds.push(line.text);
      continue;
    }
    const j = line.old as number;
    const p = at[j] as number;
    if (current === undefined || p !== current.start + current.length) {
      if (current !== undefined) pieces.push(current);
      current = { start: p, length: 0, lines: [] };
    }
    current.lines.push(...pendingAdds);
    pendingAdds = [];
    current.length++;
    if (line.tag === " ") current.lines.push(file[p] as string);
  }
  if (current !== undefined) {
    current.lines.push(...pendingAdds);
    pieces.push(current);
  }
  return pieces;
}
