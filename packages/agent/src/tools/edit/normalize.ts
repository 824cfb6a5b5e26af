/**
 * Text normalisation shared by edit_file and apply_patch: line-ending and BOM handling, and the
 * per-line comparison keys of the fuzzy matching passes.
 */

import { DASHES_AND_QUOTES } from "./typography.js";

export type LineEnding = "\n" | "\r\n";

/** A text file split into what matching needs (LF text) and what writing back needs. */
export interface DecodedText {
  /** Content without BOM; CRLF turned into LF when every line break in the file is CRLF. */
  readonly text: string;
  readonly eol: LineEnding;
  readonly bom: boolean;
}

const BOM = "\uFEFF";

/** Splits raw file text into LF text plus the BOM and line ending to restore on write. */
export function decodeText(raw: string): DecodedText {
  const bom = raw.startsWith(BOM);
  const body = bom ? raw.slice(1) : raw;
  const crlf = countOf(body, "\r\n");
  const lf = countOf(body, "\n");
  // Mixed files are left as they are (\r stays part of its line) so that nothing the edit
  // does not touch is rewritten.
  if (crlf > 0 && crlf === lf) return { text: body.replaceAll("\r\n", "\n"), eol: "\r\n", bom };
  return { text: body, eol: "\n", bom };
}

/** The inverse of decodeText: restores the line ending and BOM of the original file. */
export function encodeText(text: string, eol: LineEnding, bom: boolean): string {
  const body = eol === "\r\n" ? text.replace(/\r?\n/g, "\r\n") : text;
  return bom ? BOM + body : body;
}

/** Turns any CRLF in text the model wrote into LF. */
export function toLf(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

function countOf(haystack: string, needle: string): number {
  let count = 0;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    count++;
    at = haystack.indexOf(needle, at + needle.length);
  }
  return count;
}

/** Lines of LF text; a final line break does not start an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

// Typographic characters models and editors substitute for their ASCII forms.
const PUNCTUATION: Readonly<Record<string, string>> = {
  ...DASHES_AND_QUOTES,
  "\u00AB": '"',
  "\u00BB": '"',
  "\u2026": "...",
  "\u00A0": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2007": " ",
  "\u2008": " ",
  "\u2009": " ",
  "\u200A": " ",
  "\u202F": " ",
  "\u205F": " ",
  "\u3000": " ",
  "\u200B": "",
  "\u2060": "",
  "\uFEFF": "",
};
const NON_ASCII = /[\u0080-\u{10FFFF}]/u;
const PUNCTUATION_RE = new RegExp(`[${Object.keys(PUNCTUATION).join("")}]`, "g");

/** Replaces curly quotes, dashes, ellipses and odd spaces with their ASCII forms. */
export function normalizeUnicode(text: string): string {
  // Every character replaced is outside ASCII, and most lines have none.
  if (!NON_ASCII.test(text)) return text;
  return text.replace(PUNCTUATION_RE, (ch) => PUNCTUATION[ch] ?? ch);
}

/** The tolerances, from strictest to loosest, the fuzzy passes apply to each line. */
export type Tolerance = "exact" | "trailing-whitespace" | "indentation" | "unicode";

/** Human names for the tolerances, used in results and error messages. */
export const TOLERANCE_NAMES: Readonly<Record<Tolerance, string>> = {
  exact: "exact match",
  "trailing-whitespace": "trailing whitespace ignored",
  indentation: "indentation ignored",
  unicode: "Unicode punctuation and spaces normalised",
};

/** The comparison key of a line under a tolerance. */
export function lineKey(line: string, tolerance: Tolerance): string {
  switch (tolerance) {
    case "exact":
      return line;
    case "trailing-whitespace":
      return line.trimEnd();
    case "indentation":
      return line.trim();
    case "unicode":
      return normalizeUnicode(line).trim();
  }
}

/** The leading whitespace of a line. */
export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}
