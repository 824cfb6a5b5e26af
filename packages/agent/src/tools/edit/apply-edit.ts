import { ToolError } from "../shared/tool-errors.js";
import { type EditReading, type EditStrategy, READING_NAMES, STRATEGY_NAMES } from "./edit-types.js";
import { type FileText, fileText, modelText, type Splice, spliceFile, startsWithBom } from "./file-text.js";
import { fileIndentUnit } from "./indent-unit.js";
import {
  type Candidate,
  type FileLinesView,
  fileLinesView,
  lineCandidates,
  lineStarts,
} from "./line-match.js";
import { withoutLinePrefixes } from "./line-prefixes.js";
import { buildNewText } from "./new-text.js";
import { addedPlaceholders } from "./placeholders.js";
import { notFoundMessage } from "./refusal.js";
import { plainPunctuation } from "./typography.js";
import { newLooksOverEscaped, unescapedPair } from "./unescape.js";

/** Why an edit could not be made; `code` is stable for hosts and tests. */
export type EditErrorCode =
  | "not_found"
  | "not_unique"
  | "ambiguous"
  | "no_change"
  | "placeholder"
  | "unmappable";

/** An edit that cannot be applied; the message tells the model how to fix its call. */
export class EditError extends ToolError {
  override readonly code: EditErrorCode;
  /** How many places matched (not_unique, ambiguous). */
  readonly matches?: number;
  /** 1-based lines of the places that matched (not_unique, ambiguous), or of the closest text (not_found). */
  readonly lines?: readonly number[];
  constructor(code: EditErrorCode, message: string, matches?: number, lines?: readonly number[]) {
    super(code, message);
    this.name = "EditError";
    this.code = code;
    if (matches !== undefined) this.matches = matches;
    if (lines !== undefined) this.lines = lines;
  }
}

export interface EditOptions {
  /** Replace every place the first matching layer finds. */
  readonly replaceAll?: boolean;
  /** Used in messages only. */
  readonly path?: string;
}

export interface EditResult {
  /** The new file content, with the original line endings and BOM. */
  readonly content: string;
  readonly replacements: number;
  /** The layer that found old_string. */
  readonly strategy: EditStrategy;
  /** 1-based line of the first replacement. */
  readonly firstLine: number;
  /** old_string (and new_string) matched only with their over-escaped `\n`, `\"`… read back. */
  readonly unescaped?: boolean;
  /** old_string (and new_string) matched only without read_file's `  12 | ` line prefixes. */
  readonly lineNumbersRemoved?: boolean;
}

/** The layers, strictest first; a layer is tried only when every stricter one found nothing. */
export const EDIT_STRATEGIES: readonly EditStrategy[] = [
  "exact",
  "trailing-whitespace",
  "typographic",
  "indentation",
  "tabs-spaces",
  "tabs-spaces-shifted",
];

interface Reading {
  readonly reading: EditReading;
  readonly oldText: string;
  readonly newText: string;
}

interface Found extends Candidate {
  readonly reading: EditReading;
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    found.push(at);
  return found;
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

// A match that stops where only whitespace is left on its line takes that whitespace too: the
// model sent the line without it, and the line gets the trailing whitespace new_string has.
function throughTrailingWhitespace(lf: string, end: number, oldText: string): number {
  if (oldText.endsWith("\n")) return end;
  const m = /^[ \t]+(?=\n|$)/.exec(lf.slice(end, end + 200));
  return m === null ? end : end + m[0].length;
}

// One line of old_string found after a line's indentation, replaced by several lines none of
// which has that indentation: the model may have written them relative to it or as they should
// be, and the two give different files.
function unclearIndentation(
  prefix: string,
  oldText: string,
  newLines: readonly string[],
): string | undefined {
  if (prefix === "" || !/^[ \t]+$/.test(prefix)) return undefined;
  if (
    oldText
      .split("\n")
      .slice(1)
      .some((l) => l.trim() !== "")
  )
    return undefined;
  const full = prefix + (/^[ \t]*/.exec(oldText)?.[0] ?? "");
  const rest = newLines.slice(1).filter((l) => l.trim() !== "");
  if (rest.length === 0 || rest.some((l) => l.startsWith(full))) return undefined;
  return "old_string starts after that line's indentation while new_string's other lines do not have it, so it is not clear where they belong";
}

// The candidates of one layer for one reading of the strings.
function layerCandidates(
  layer: EditStrategy,
  lf: string,
  plainLf: () => string,
  view: () => FileLinesView,
  lineStarts: () => readonly number[],
  r: Reading,
): Candidate[] {
  const oldLines = r.oldText.split("\n");
  const newLines = r.newText.split("\n");
  switch (layer) {
    case "exact":
    case "line-endings":
      return occurrences(lf, r.oldText).map((start) => {
        const line = lineOf(lineStarts(), start);
        const lineStart = lineStarts()[line] as number;
        // A line whose text new_string makes blank loses its indentation too: the model's line is
        // blank (and gone, when the line break goes as well).
        const whole = (newLines[0] as string).trim() === "" && /^[ \t]*$/.test(lf.slice(lineStart, start));
        const candidate = {
          start: whole ? lineStart : start,
          end: throughTrailingWhitespace(lf, start + r.oldText.length, r.oldText),
          text: r.newText,
          line,
        };
        const problem =
          unclearIndentation(lf.slice(lineStart, start), r.oldText, newLines) ??
          (r.reading === "as-written" && newLooksOverEscaped(r.oldText, r.newText)
            ? "new_string has no line break yet writes out \\n outside any string literal (over-escaped?), so it is not clear whether it means line breaks"
            : undefined);
        return problem === undefined ? candidate : { ...candidate, problem };
      });
    case "typographic": {
      // Within lines too (old_string may be part of a line): one-for-one forms keep offsets.
      const needle = plainPunctuation(r.oldText);
      const out: Candidate[] = [];
      if (needle.trim() !== "") {
        for (const start of occurrences(plainLf(), needle)) {
          const matched = lf.slice(start, start + needle.length);
          if (matched === r.oldText) continue;
          const fileLines = matched.split("\n");
          const aligned = oldLines.map((o, j) => ({
            oldContent: o,
            fileContent: fileLines[j] as string,
            fileText: fileLines[j] as string,
          }));
          const built = buildNewText(oldLines, newLines, aligned, undefined, false);
          const line = lineOf(lineStarts(), start);
          out.push(
            built.ok
              ? { start, end: start + needle.length, text: built.text, line }
              : { start, end: start + needle.length, text: "", line, problem: built.problem },
          );
        }
      }
      return [...out, ...lineCandidates(view(), oldLines, newLines, "typographic")];
    }
    default:
      return lineCandidates(view(), oldLines, newLines, layer);
  }
}

// The distinct outcomes of a layer: candidates that overlap and give the same file are one place
// found two ways (the first is kept); overlapping ones that give different files stay apart, so
// that they count as ambiguous. With replace_all, the first of overlapping places is kept.
function distinctPlaces(found: readonly Found[], file: FileText, replaceAll: boolean): Found[] {
  const out: Found[] = [];
  for (const f of found) {
    const overlapping = out.filter((o) => f.start < o.end && o.start < f.end);
    if (overlapping.length === 0) {
      out.push(f);
      continue;
    }
    if (replaceAll) continue;
    const result = spliceFile(file, [f], false);
    if (overlapping.every((o) => o.problem === f.problem && spliceFile(file, [o], false) === result))
      continue;
    out.push(f);
  }
  return out.sort((a, b) => a.start - b.start);
}

function listLines(lines: readonly number[]): string {
  return `${lines.slice(0, 10).join(", ")}${lines.length > 10 ? ", …" : ""}`;
}

/**
 * Replaces oldString with newString in a file's text, but only where the result is provably what
 * was meant: old_string must match one place exactly, or after normalisations applied alike to
 * old_string, new_string and the file (line endings, trailing whitespace, typographic punctuation,
 * a uniform indentation shift, tabs and spaces), tried strictest first; old_string may also be
 * read back from over-escaping or without read_file's line numbers. Keeps the file's line endings
 * and BOM. Throws EditError, with what to send instead, when the edit cannot be made.
 */
export function applyEdit(
  original: string,
  oldString: string,
  newString: string,
  options: EditOptions = {},
): EditResult {
  const where = options.path === undefined ? "the file" : options.path;
  if (oldString === newString) {
    throw new EditError("no_change", "old_string and new_string are identical: nothing to change.");
  }
  const file = fileText(original);
  const oldText = modelText(oldString);
  const newText = modelText(newString);
  // A byte-order mark the model writes at the start of old_string but not new_string removes the file's.
  const dropBom = file.bom && startsWithBom(oldString) && !startsWithBom(newString);
  if (oldText === "") {
    throw new EditError(
      "not_found",
      `old_string is empty but ${where} is not empty; give the text to replace (an empty old_string only creates a new or empty file).`,
    );
  }
  const placeholders = addedPlaceholders(oldText, newText);
  if (placeholders.length > 0) {
    throw new EditError(
      "placeholder",
      `new_string contains ${placeholders.map((p) => `"${p}"`).join(", ")}, which stands for code left out: writing it would delete that code from ${where}. Nothing was changed. Write the complete replacement text, or make old_string cover only the lines you change.`,
    );
  }

  const readings: Reading[] = [{ reading: "as-written", oldText, newText }];
  const unescaped = unescapedPair(oldText, newText);
  if (unescaped !== undefined) readings.push({ reading: "unescaped", ...unescaped });
  const unnumbered = withoutLinePrefixes(oldText, newText);
  if (unnumbered !== undefined) readings.push({ reading: "line-numbers", ...unnumbered });

  let plain: string | undefined;
  let view: FileLinesView | undefined;
  let starts: number[] | undefined;
  const lineStartsOf = () => {
    starts ??= lineStarts(file.lf);
    return starts;
  };
  const plainLf = () => {
    plain ??= plainPunctuation(file.lf);
    return plain;
  };
  const linesView = () => {
    // NFC text (the usual case) shares the typographic layer's plain copy.
    const plainNfc = () => {
      const nfc = file.lf.normalize("NFC");
      return nfc === file.lf ? plainLf() : plainPunctuation(nfc);
    };
    view ??= fileLinesView(file.lf, fileIndentUnit, plainNfc, lineStartsOf());
    return view;
  };

  for (const layer of EDIT_STRATEGIES) {
    const found: Found[] = [];
    for (const r of readings) {
      if (r.oldText === "" || (r.oldText.trim() === "" && layer !== "exact")) continue;
      for (const c of layerCandidates(layer, file.lf, plainLf, linesView, lineStartsOf, r))
        found.push({ ...c, reading: r.reading });
    }
    if (found.length === 0) continue;
    const places = distinctPlaces(found, file, options.replaceAll === true);
    const lines = places.map((p) => p.line + 1);
    const how = STRATEGY_NAMES[layer];
    if (places.length > 1 && !options.replaceAll) {
      if (layer === "exact" && places.every((p) => p.reading === "as-written")) {
        throw new EditError(
          "not_unique",
          `old_string matches ${places.length} times in ${where} (lines ${listLines(lines)}). Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.`,
          places.length,
          lines,
        );
      }
      throw new EditError(
        "ambiguous",
        `old_string was not found exactly in ${where}; with ${how} it matches ${places.length} places or readings (lines ${listLines(lines)}), so none was changed. Copy old_string exactly from the file, with enough surrounding lines to make it unique.`,
        places.length,
        lines,
      );
    }
    const problem = places.find((p) => p.problem !== undefined);
    if (problem !== undefined) {
      throw new EditError(
        "unmappable",
        `old_string matches ${where} at line ${problem.line + 1} (${how}), but ${problem.problem}. Nothing was changed. Send old_string as whole lines with the file's own indentation, and new_string as the exact text to write, with real line breaks and the indentation each line should have.`,
        1,
        [problem.line + 1],
      );
    }
    const splices: Splice[] = places;
    const bom = dropBom && places[0]?.start === 0 ? false : file.bom;
    const content = spliceFile(file, splices, bom);
    if (content === original) {
      throw new EditError(
        "no_change",
        `old_string was found in ${where} (line ${lines[0]}, ${how}) but replacing it with new_string changes nothing.`,
      );
    }
    const reading = (places[0] as Found).reading;
    const strategy: EditStrategy =
      layer === "exact" && reading === "as-written" && file.crlfAt.length > 0 && !file.raw.includes(oldString)
        ? "line-endings"
        : layer;
    return {
      content,
      replacements: places.length,
      strategy,
      firstLine: Math.min(...lines),
      ...(reading === "unescaped" && { unescaped: true }),
      ...(reading === "line-numbers" && { lineNumbersRemoved: true }),
    };
  }
  const refusal = notFoundMessage(linesView(), readings, where, READING_NAMES);
  throw new EditError(
    "not_found",
    refusal.message,
    undefined,
    refusal.line === undefined ? undefined : [refusal.line],
  );
}
