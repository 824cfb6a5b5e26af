import { lineKey } from "../edit/normalize.js";

/**
 * How a hunk's context and removed lines were found in the file, strictest first. A looser layer
 * is tried only when the stricter ones found no place at all, so it can never win over them.
 */
export type MatchLayer = "exact" | "trailing-whitespace" | "indentation" | "unicode";

/** The layers in the order they are tried. */
export const MATCH_LAYERS: readonly MatchLayer[] = ["exact", "trailing-whitespace", "indentation", "unicode"];

/** Human names for the layers, used in results and refusals. */
export const LAYER_NAMES: Readonly<Record<MatchLayer, string>> = {
  exact: "exact match",
  "trailing-whitespace": "trailing whitespace ignored",
  indentation: "indentation re-expressed in the file's own",
  unicode: "Unicode punctuation and spaces normalised",
};

/** The leading spaces and tabs of a line. */
export function leadOf(line: string): string {
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  return line.slice(0, i);
}

/** A line with nothing but whitespace (a carriage return of a mixed-ending file included). */
export function isBlank(line: string): boolean {
  return line.trim() === "";
}

/**
 * The text a layer compares: the whole line (exact), the line without trailing whitespace, or
 * the line without any surrounding whitespace (indentation is then checked separately, as a
 * transform that must fit every line), with typographic punctuation mapped to ASCII (unicode).
 */
export function keyOf(line: string, layer: MatchLayer): string {
  return lineKey(line, layer);
}

/** The keys of a file's lines under each layer, computed on first use and kept for every hunk. */
export class LineKeys {
  private readonly byLayer = new Map<MatchLayer, readonly string[]>();
  constructor(readonly lines: readonly string[]) {}

  /** The key of every line under `layer`. */
  of(layer: MatchLayer): readonly string[] {
    if (layer === "exact") return this.lines;
    let keys = this.byLayer.get(layer);
    if (keys === undefined) {
      keys = this.lines.map((line) => keyOf(line, layer));
      this.byLayer.set(layer, keys);
    }
    return keys;
  }
}
