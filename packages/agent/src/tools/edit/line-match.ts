import { type IndentUnit, indentConversions } from "./indent-unit.js";
import { type AlignedLine, buildNewText, type IndentMap } from "./new-text.js";
import { indentOf } from "./normalize.js";
import { plainPunctuation } from "./typography.js";

/** The layers that compare whole lines, strictest first; each also allows what the ones before it allow. */
export type LineLayer =
  | "trailing-whitespace"
  | "typographic"
  | "indentation"
  | "tabs-spaces"
  | "tabs-spaces-shifted";

/** One place old_string matched: an LF span of the file and the LF text to put there. */
export interface Candidate {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** 0-based line of the match's start. */
  readonly line: number;
  /** Set when the place is certain but new_string cannot be written there the same way. */
  readonly problem?: string;
}

/** A file's LF text cut into lines, with the per-line comparison keys the layers need, made on demand. */
export interface FileLinesView {
  readonly lines: readonly string[];
  readonly starts: readonly number[];
  readonly unit: IndentUnit | undefined;
  /** A line's content (after indentation, without trailing whitespace), exact or with plain punctuation. */
  key(line: number, plain: boolean): string;
  /** The lines whose key is `key` (not empty). */
  linesWithKey(key: string, plain: boolean): number[];
}

const contentOf = (line: string): string => line.slice(indentOf(line).length).trimEnd();
// Canonically equivalent accents (composed or not) are the same text; then the one-for-one forms.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is the point
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const plainKey = (content: string): string =>
  ASCII_ONLY.test(content) ? content : plainPunctuation(content.normalize("NFC"));

/** Offsets where the lines of a text start. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Cuts LF text into lines. Keys are computed per line when asked, and lines with a key are found
 * by searching the text for it, so a large file costs little more than the search.
 */
export function fileLinesView(
  lf: string,
  unit: (lines: readonly string[]) => IndentUnit | undefined,
  plainOf: () => string = () => (ASCII_ONLY.test(lf) ? lf : plainPunctuation(lf.normalize("NFC"))),
  knownStarts: readonly number[] = lineStarts(lf),
): FileLinesView {
  const lines = lf.split("\n");
  const starts = knownStarts;
  const exact = new Map<number, string>();
  const plainKeys = new Map<number, string>();
  const key = (line: number, plain: boolean): string => {
    let k = exact.get(line);
    if (k === undefined) {
      k = contentOf(lines[line] as string);
      exact.set(line, k);
    }
    if (!plain) return k;
    let p = plainKeys.get(line);
    if (p === undefined) {
      p = plainKey(k);
      plainKeys.set(line, p);
    }
    return p;
  };
  // The plain text keeps the lines (NFC and one-for-one forms never add or remove a line break).
  let plainText: { text: string; starts: number[] } | undefined;
  const plainView = () => {
    if (plainText === undefined) {
      const text = plainOf();
      plainText = { text, starts: text.length === lf.length ? [...starts] : lineStarts(text) };
    }
    return plainText;
  };
  let knownUnit: { unit: IndentUnit | undefined } | undefined;
  return {
    lines,
    starts,
    get unit() {
      knownUnit ??= { unit: unit(lines) };
      return knownUnit.unit;
    },
    key,
    linesWithKey: (wanted, plain) => {
      const { text, starts: at } = plain ? plainView() : { text: lf, starts };
      const found: number[] = [];
      let last = -1;
      for (let i = text.indexOf(wanted); i !== -1; i = text.indexOf(wanted, i + 1)) {
        const line = lineOf(at, i);
        if (line === last) continue;
        last = line;
        if (key(line, plain) === wanted) found.push(line);
      }
      return found;
    },
  };
}

// A shift the file is deeper by is the file's own whitespace. A shift old_string is deeper by must
// be in the file's unit: spaces the model put in front of a tab-indented block mean nothing there.
function shiftAllowed(shift: Shift, unit: IndentUnit | undefined): boolean {
  if ("add" in shift) return true;
  if (unit === undefined) return /^(?:\t*| *)$/.test(shift.remove);
  return unit.kind === "tab" ? /^\t*$/.test(shift.remove) : /^ *$/.test(shift.remove);
}

type Shift = { readonly add: string } | { readonly remove: string };

/**
 * The places where old_string's lines match whole file lines under a layer. A first line that is
 * empty (old_string starts with a line break) and a last one that is empty (it ends with one) match
 * the end and the start of a line. Every non-blank line must have the file's content; indentation
 * must be the file's, or (indentation, tabs-spaces) differ from it by one prefix shared by every
 * line, which new_string's lines then get (or lose) too.
 */
export function lineCandidates(
  view: FileLinesView,
  oldLines: readonly string[],
  newLines: readonly string[],
  layer: LineLayer,
): Candidate[] {
  if (layer !== "tabs-spaces" && layer !== "tabs-spaces-shifted") {
    return matchLines(view, oldLines, newLines, layer, (i) => i);
  }
  if (view.unit === undefined) return [];
  const out: Candidate[] = [];
  for (const convert of indentConversions(view.unit, oldLines)) {
    const mapLine = (line: string): string | undefined => {
      const indent = indentOf(line);
      const to = convert(indent);
      return to === undefined ? undefined : to + line.slice(indent.length);
    };
    const converted = oldLines.map(mapLine);
    if (converted.some((l) => l === undefined)) continue;
    const oldConverted = converted as string[];
    if (oldConverted.every((l, j) => l === oldLines[j])) continue;
    // new_string is compared with old_string in the model's own indentation, then converted.
    for (const c of matchLines(
      view,
      oldLines,
      newLines,
      layer,
      convert,
      oldConverted,
      convert,
      view.unit.kind === "tab",
    )) {
      out.push(c);
    }
  }
  return out;
}

function matchLines(
  view: FileLinesView,
  oldLines: readonly string[],
  newLines: readonly string[],
  layer: LineLayer,
  convert: IndentMap,
  compared: readonly string[] = oldLines,
  convertBlank: IndentMap = convert,
  guessesContinuations = false,
): Candidate[] {
  const k = oldLines.length;
  const openStart = k > 1 && oldLines[0] === "";
  const openEnd = k > 1 && oldLines[k - 1] === "";
  const plain = layer !== "trailing-whitespace";
  const oldKeys = compared.map((l) => (plain ? plainKey(contentOf(l)) : contentOf(l)));
  const first = openStart ? 1 : 0;
  const last = openEnd ? k - 2 : k - 1;
  let anchor = -1;
  for (let j = first; j <= last; j++) {
    if (oldKeys[j] !== "") {
      anchor = j;
      break;
    }
  }
  if (anchor === -1) return [];

  const out: Candidate[] = [];
  for (const at of view.linesWithKey(oldKeys[anchor] as string, plain)) {
    const i = at - anchor;
    if (i < 0 || i + k > view.lines.length) continue;
    let shift: Shift | undefined;
    let ok = true;
    for (let j = first; j <= last && ok; j++) {
      const key = oldKeys[j] as string;
      if (view.key(i + j, plain) !== key) ok = false;
      else if (key !== "") {
        const oi = indentOf(compared[j] as string);
        const fi = indentOf(view.lines[i + j] as string);
        if (layer !== "indentation" && layer !== "tabs-spaces-shifted") ok = oi === fi;
        else if (shift === undefined) {
          if (fi.endsWith(oi)) shift = { add: fi.slice(0, fi.length - oi.length) };
          else if (oi.endsWith(fi)) shift = { remove: oi.slice(0, oi.length - fi.length) };
          else ok = false;
          if (ok && shift !== undefined && !shiftAllowed(shift, view.unit)) ok = false;
        } else if ("add" in shift) ok = fi === shift.add + oi;
        else ok = oi === shift.remove + fi;
      }
    }
    if (!ok) continue;
    const aligned: AlignedLine[] = oldLines.map((_line, j) => {
      const open = (j === 0 && openStart) || (j === k - 1 && openEnd);
      const fileLine = open ? "" : (view.lines[i + j] as string);
      return {
        oldContent: open ? "" : contentOf(compared[j] as string),
        fileContent: open ? "" : contentOf(fileLine),
        fileText: fileLine,
      };
    });
    const indentMap: IndentMap =
      shift === undefined
        ? convert
        : "add" in shift
          ? (indent) => {
              const c = convert(indent);
              return c === undefined ? undefined : shift.add + c;
            }
          : (indent) => {
              const c = convert(indent);
              return c?.startsWith(shift.remove) ? c.slice(shift.remove.length) : undefined;
            };
    const built = buildNewText(
      oldLines,
      newLines,
      aligned,
      indentMap,
      true,
      convertBlank,
      guessesContinuations,
    );
    const startLine = view.starts[i] as number;
    const endLine = i + k - 1;
    const start = openStart ? startLine + (view.lines[i] as string).length : startLine;
    const end = openEnd
      ? (view.starts[endLine] as number)
      : (view.starts[endLine] as number) + (view.lines[endLine] as string).length;
    out.push(
      built.ok
        ? { start, end, text: built.text, line: openStart ? i + 1 : i }
        : { start, end, text: "", line: i, problem: built.problem },
    );
  }
  return out;
}
