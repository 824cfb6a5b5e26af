import { type FileIndentation, fittingTransforms, type IndentPair } from "./indentation.js";
import { isBlank, keyOf, type LineKeys, leadOf, MATCH_LAYERS, type MatchLayer } from "./layers.js";

/** Where a hunk's old lines fit the file, under which layer, and how each line's indentation pairs up. */
export interface HunkFit {
  readonly index: number;
  readonly layer: MatchLayer;
  readonly pairs: readonly IndentPair[];
}

/** The outcome of looking for a hunk: one place, several (under the strictest layer that found any), or none. */
export type Seek =
  | { readonly kind: "found"; readonly fit: HunkFit }
  | { readonly kind: "ambiguous"; readonly layer: MatchLayer; readonly indexes: readonly number[] }
  | { readonly kind: "none" };

// Enough places to show the model where an ambiguous hunk matches.
const MAX_PLACES = 5;

// A file-wide index of a layer's keys pays for itself only over several searches; the first
// searches scan the lines instead.
const SCANS_BEFORE_INDEX = 4;

/** Per-layer positions of every key in the file, so a hunk is only compared where its rarest line is. */
export class FileIndex {
  private readonly positions = new Map<MatchLayer, Map<string, number[]>>();
  private readonly scans = new Map<MatchLayer, number>();
  private indentation: FileIndentation | undefined;
  constructor(
    readonly keys: LineKeys,
    private readonly describe: (lines: readonly string[]) => FileIndentation,
  ) {}

  /** The lines of the file. */
  get lines(): readonly string[] {
    return this.keys.lines;
  }

  /** Ascending positions of the lines whose key under `layer` is `key`. */
  where(layer: MatchLayer, key: string): readonly number[] {
    let map = this.positions.get(layer);
    if (map === undefined) {
      map = new Map();
      this.keys.of(layer).forEach((k, i) => {
        const list = map?.get(k);
        if (list === undefined) map?.set(k, [i]);
        else list.push(i);
      });
      this.positions.set(layer, map);
    }
    return map.get(key) ?? [];
  }

  /**
   * Positions in [from, to] where the line's key under `layer` is `patternKeys[pivot]`, minus
   * `pivot`: the places where a pattern could start. Scans the lines for the first searches of a
   * layer, then builds the layer's index.
   */
  starts(layer: MatchLayer, patternKeys: readonly string[], from: number, to: number): number[] {
    const scans = (this.scans.get(layer) ?? 0) + 1;
    this.scans.set(layer, scans);
    if (scans <= SCANS_BEFORE_INDEX && !this.positions.has(layer)) {
      // The longest line is the likeliest to be rare.
      let pivot = 0;
      patternKeys.forEach((k, j) => {
        if (k.length > (patternKeys[pivot] as string).length) pivot = j;
      });
      const keys = this.keys.of(layer);
      const key = patternKeys[pivot] as string;
      const found: number[] = [];
      for (let at = from; at <= to; at++) if (keys[at + pivot] === key) found.push(at);
      return found;
    }
    let pivot = 0;
    let positions: readonly number[] | undefined;
    for (let j = 0; j < patternKeys.length; j++) {
      const here = this.where(layer, patternKeys[j] as string);
      if (positions === undefined || here.length < positions.length) {
        pivot = j;
        positions = here;
        if (here.length === 0) break;
      }
    }
    return (positions ?? []).map((p) => p - pivot).filter((at) => at >= from && at <= to);
  }

  /** What the file's indentation looks like as a whole. */
  fileIndentation(): FileIndentation {
    this.indentation ??= this.describe(this.lines);
    return this.indentation;
  }
}

/** The pairs of indentation at a place where every key matched, or undefined when no transform fits them. */
function indentFit(index: FileIndex, pattern: readonly string[], at: number): IndentPair[] | undefined {
  const pairs: IndentPair[] = [];
  for (let j = 0; j < pattern.length; j++) {
    const hunk = pattern[j] as string;
    if (isBlank(hunk)) continue;
    pairs.push({ hunk: leadOf(hunk), file: leadOf(index.lines[at + j] as string) });
  }
  return fittingTransforms(pairs, index.fileIndentation()).length > 0 ? pairs : undefined;
}

function fitsAt(keys: readonly string[], patternKeys: readonly string[], at: number): boolean {
  for (let j = 0; j < patternKeys.length; j++) {
    if (keys[at + j] !== patternKeys[j]) return false;
  }
  return true;
}

/** Places (ascending, at most MAX_PLACES + 1) in [from, to] where the pattern fits under `layer`. */
function placesUnder(
  index: FileIndex,
  pattern: readonly string[],
  layer: MatchLayer,
  from: number,
  last: number,
): { at: number; pairs: IndentPair[] }[] {
  const keys = index.keys.of(layer);
  const patternKeys = pattern.map((line) => keyOf(line, layer));
  const found: { at: number; pairs: IndentPair[] }[] = [];
  for (const at of index.starts(layer, patternKeys, from, last)) {
    if (!fitsAt(keys, patternKeys, at)) continue;
    let pairs: IndentPair[] = [];
    if (layer === "indentation" || layer === "unicode") {
      const fitted = indentFit(index, pattern, at);
      if (fitted === undefined) continue;
      pairs = fitted;
    }
    found.push({ at, pairs });
    if (found.length > MAX_PLACES) break;
  }
  return found;
}

/**
 * Looks for the hunk's old lines at or after `from`, one layer at a time, strictest first: the
 * first layer that finds any place decides, and it must find exactly one. With `atEnd` (an
 * End of File hunk), the place that ends at the last line is taken when it fits.
 */
export function seekHunk(index: FileIndex, pattern: readonly string[], from: number, atEnd: boolean): Seek {
  const last = index.lines.length - pattern.length;
  if (last < from) return { kind: "none" };
  for (const layer of MATCH_LAYERS) {
    if (atEnd) {
      const tail = placesUnder(index, pattern, layer, last, last);
      if (tail[0] !== undefined) return { kind: "found", fit: { index: last, layer, pairs: tail[0].pairs } };
    }
    const places = placesUnder(index, pattern, layer, from, last);
    if (places.length === 1) {
      const only = places[0] as { at: number; pairs: IndentPair[] };
      return { kind: "found", fit: { index: only.at, layer, pairs: only.pairs } };
    }
    if (places.length > 1) return { kind: "ambiguous", layer, indexes: places.map((p) => p.at) };
  }
  return { kind: "none" };
}

// An @@ line is written without its indentation, so it is compared trimmed, then normalised.
const ANCHOR_LAYERS: readonly MatchLayer[] = ["indentation", "unicode"];

/** The lines at or after `from` that an @@ line names, under the first layer that finds any. */
export function anchorPlaces(index: FileIndex, anchor: string, from: number): readonly number[] {
  for (const layer of ANCHOR_LAYERS) {
    const key = keyOf(anchor, layer);
    const keys = index.keys.of(layer);
    const places: number[] = [];
    for (let at = from; at < keys.length; at++) if (keys[at] === key) places.push(at);
    if (places.length > 0) return places;
  }
  return [];
}
