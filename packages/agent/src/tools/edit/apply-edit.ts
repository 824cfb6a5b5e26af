import { closestCandidate, numberLines } from "./closest.js";
import { findAllLines } from "./match-lines.js";
import { decodeText, encodeText, indentOf, TOLERANCE_NAMES, type Tolerance, toLf } from "./normalize.js";

/** Why an edit could not be made; `code` is stable for hosts and tests. */
export type EditErrorCode = "not_found" | "not_unique" | "ambiguous" | "no_change";

/** An edit that cannot be applied; the message tells the model how to fix its call. */
export class EditError extends Error {
  readonly code: EditErrorCode;
  /** How many places matched (not_unique, ambiguous). */
  readonly matches?: number;
  constructor(code: EditErrorCode, message: string, matches?: number) {
    super(message);
    this.name = "EditError";
    this.code = code;
    if (matches !== undefined) this.matches = matches;
  }
}

export interface EditOptions {
  readonly replaceAll?: boolean;
  /** Used in messages only. */
  readonly path?: string;
}

export interface EditResult {
  /** The new file content, with the original line ending and BOM. */
  readonly content: string;
  readonly replacements: number;
  readonly tolerance: Tolerance;
  /** 1-based line of the first replacement. */
  readonly firstLine: number;
}

/** The fallback passes, in order, tried only when the exact search finds nothing. */
export const EDIT_FALLBACKS: readonly Tolerance[] = ["trailing-whitespace", "indentation", "unicode"];

const TRIED = ["exact" as const, ...EDIT_FALLBACKS].map((t) => TOLERANCE_NAMES[t]).join(", ");

/**
 * Replaces oldString with newString in a file's text: exactly (unique unless replaceAll), else
 * through the fallback tolerances when exactly one place matches. Line endings and BOM of the
 * original are kept. Throws EditError when the edit cannot be made unambiguously.
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
  const { text, eol, bom } = decodeText(original);
  const oldText = toLf(oldString);
  const newText = toLf(newString);
  if (oldText === "") {
    throw new EditError(
      "not_found",
      `old_string is empty but ${where} is not empty; give the text to replace (an empty old_string only creates a new or empty file).`,
    );
  }

  const positions = occurrences(text, oldText);
  if (positions.length > 1 && !options.replaceAll) {
    const lines = positions.slice(0, 10).map((p) => lineNumberAt(text, p));
    throw new EditError(
      "not_unique",
      `old_string matches ${positions.length} times in ${where} (lines ${lines.join(", ")}${positions.length > 10 ? ", …" : ""}). Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.`,
      positions.length,
    );
  }
  if (positions.length > 0) {
    const updated = text.split(oldText).join(newText);
    return {
      content: encodeText(updated, eol, bom),
      replacements: positions.length,
      tolerance: "exact",
      firstLine: lineNumberAt(text, positions[0] as number),
    };
  }

  const fileLines = text.split("\n");
  const oldLines = withoutFinalBreak(oldText);
  for (const tolerance of EDIT_FALLBACKS) {
    const found = findAllLines(fileLines, oldLines, tolerance);
    if (found.length === 0) continue;
    if (found.length > 1) {
      throw new EditError(
        "ambiguous",
        `old_string was not found exactly in ${where}; with ${TOLERANCE_NAMES[tolerance]} it matches ${found.length} places (lines ${found
          .slice(0, 10)
          .map((i) => i + 1)
          .join(", ")}). Copy old_string exactly from the file, with more surrounding lines.`,
        found.length,
      );
    }
    const at = found[0] as number;
    const matched = fileLines.slice(at, at + oldLines.length);
    let replacement = newText === "" ? [] : withoutFinalBreak(newText);
    if (tolerance !== "trailing-whitespace") replacement = reindent(replacement, oldLines, matched);
    const updated = [
      ...fileLines.slice(0, at),
      ...replacement,
      ...fileLines.slice(at + oldLines.length),
    ].join("\n");
    return {
      content: encodeText(updated, eol, bom),
      replacements: 1,
      tolerance,
      firstLine: at + 1,
    };
  }

  const candidate = closestCandidate(fileLines, oldLines);
  const hint =
    candidate === undefined
      ? "No similar lines were found."
      : `Closest candidate (lines ${candidate.start + 1}-${candidate.start + candidate.lines.length}, ${Math.round(candidate.similarity * 100)}% similar):\n${numberLines(candidate.lines, candidate.start + 1)}`;
  throw new EditError(
    "not_found",
    `old_string was not found in ${where}. Tried: ${TRIED}.\n${hint}\nRead the file again and copy old_string exactly, including whitespace.`,
  );
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  let at = text.indexOf(needle);
  while (at !== -1) {
    found.push(at);
    at = text.indexOf(needle, at + needle.length);
  }
  return found;
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

// A trailing line break in old_string/new_string means "whole lines", not an extra empty line.
function withoutFinalBreak(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Moves new lines from the indentation the model used in old_string to the indentation the file
 * really has: a new line indented like some old line gets that line's file indentation (this
 * also converts spaces to tabs); other lines shift by the difference at the first old line.
 */
export function reindent(
  newLines: readonly string[],
  oldLines: readonly string[],
  fileLines: readonly string[],
): string[] {
  const ref = oldLines.findIndex((line) => line.trim() !== "");
  if (ref === -1) return [...newLines];
  const byIndent = new Map<string, string>();
  oldLines.forEach((line, j) => {
    const own = indentOf(line);
    if (line.trim() !== "" && !byIndent.has(own)) byIndent.set(own, indentOf(fileLines[j] ?? ""));
  });
  const from = indentOf(oldLines[ref] as string);
  const to = indentOf(fileLines[ref] as string);
  return newLines.map((line) => {
    if (line.trim() === "") return line;
    const own = indentOf(line);
    const mapped = byIndent.get(own);
    if (mapped !== undefined) return mapped + line.slice(own.length);
    if (line.startsWith(from)) return to + line.slice(from.length);
    if (to.startsWith(from)) return to.slice(from.length) + line;
    if (from.startsWith(to)) {
      // Outdented relative to the reference line: remove as much as the file is shallower.
      return line.slice(Math.min(own.length, from.length - to.length));
    }
    return to + line.slice(own.length);
  });
}
