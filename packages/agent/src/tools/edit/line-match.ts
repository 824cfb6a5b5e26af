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

/** A file's LF text cut into lines, with the per-line comparison keys the layers need. */
export interface FileLinesView {
  readonly lines: readonly string[];
  readonly starts: readonly number[];
  readonly unit: IndentUnit | undefined;
  /** Content (after indentation, without trailing whitespace) per line, exact and with plain punctuation. */
  readonly exactKeys: readonly string[];
  readonly plainKeys: readonly string[];
  readonly byExactKey: ReadonlyMap<string, readonly number[]>;
  readonly byPlainKey: ReadonlyMap<string, readonly number[]>;
}

const contentOf = (line: string): string => line.slice(indentOf(line).length).trimEnd();
// Canonically equivalent accents (composed or not) are the same text; then the one-for-one forms.
const plainKey = (content: string): string => plainPunctuation(content.normalize("NFC"));

function index(keys: readonly string[]): Map<string, number[]> {
  const map = new Map<string, number[]>();
  keys.forEach((k, i) => {
    const list = map.get(k);
    if (list === undefined) map.set(k, [i]);
    else list.push(i);
  });
  return map;
}

/** Cuts LF text into lines and computes their keys once for every layer. */
export function fileLinesView(lf: string, unit: IndentUnit | undefined): FileLinesView {
  const lines = lf.split("\n");
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  const exactKeys = lines.map(contentOf);
  const plainKeys = exactKeys.map(plainKey);
  return {
    lines,
    starts,
    unit,
    exactKeys,
    plainKeys,
    byExactKey: index(exactKeys),
    byPlainKey: index(plainKeys),
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
    // new_string is compared with old_string in the model's own indentation, then converted. In
    // a tab file that also aligns with spaces, the model's spaces may stand for either: only an
    // indentation old_string showed to be tabs alone is converted.
    const unit = view.unit;
    const sure = new Set<string>();
    oldLines.forEach((l, j) => {
      const to = indentOf(oldConverted[j] as string);
      if (l.trim() !== "" && !to.includes(" ")) sure.add(indentOf(l));
    });
    const convertNew: IndentMap =
      unit.kind === "tab" && unit.aligns
        ? (indent) => (sure.has(indent) ? convert(indent) : undefined)
        : convert;
    for (const c of matchLines(
      view,
      oldLines,
      newLines,
      layer,
      convertNew,
      oldConverted,
      convert,
      unit.kind === "tab",
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
  const byKey = plain ? view.byPlainKey : view.byExactKey;
  const fileKeys = plain ? view.plainKeys : view.exactKeys;
  const out: Candidate[] = [];
  for (const at of byKey.get(oldKeys[anchor] as string) ?? []) {
    const i = at - anchor;
    if (i < 0 || i + k > view.lines.length) continue;
    let shift: Shift | undefined;
    let ok = true;
    for (let j = first; j <= last && ok; j++) {
      const key = oldKeys[j] as string;
      if (fileKeys[i + j] !== key) ok = false;
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
