import { ToolError } from "../shared/tool-errors.js";
import { closestCandidate, numberLines } from "./closest.js";
import {
  type EditStrategy,
  type LayerInput,
  type LayerResult,
  type SpanEdit,
  STRATEGY_NAMES,
} from "./edit-types.js";
import { lineNumberAt } from "./eol.js";
import { fileLines, modelLines } from "./file-lines.js";
import { matchFlexible } from "./match-flexible.js";
import { FUZZY_THRESHOLD, matchFuzzy } from "./match-fuzzy.js";
import { matchExact, matchNormalised } from "./match-text.js";
import { matchTokens } from "./match-tokens.js";
import { toLf } from "./normalize.js";
import { addedPlaceholders } from "./placeholders.js";
import { unescapeOverEscaped } from "./unescape.js";

/** Why an edit could not be made; `code` is stable for hosts and tests. */
export type EditErrorCode = "not_found" | "not_unique" | "ambiguous" | "no_change" | "placeholder";

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
  /** Replace every place the first matching layer finds (never used for a fuzzy match). */
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
  /** Fuzzy matches only: how similar (0..1) the replaced text was to old_string. */
  readonly similarity?: number;
  /** old_string (and new_string) matched only with their over-escaped `\n`, `\"`… read back. */
  readonly unescaped?: boolean;
}

/** The matching layers, in order; each is tried only when the ones before it found nothing. */
export const EDIT_STRATEGIES: readonly EditStrategy[] = [
  "exact",
  "line-endings",
  "unicode",
  "whitespace",
  "tokens",
  "fuzzy",
];

const BOM = "\uFEFF";

function runLayer(strategy: EditStrategy, input: LayerInput, oldRaw: string): LayerResult {
  switch (strategy) {
    case "exact":
      return matchExact(input, oldRaw);
    case "line-endings":
    case "unicode":
      return matchNormalised(input, strategy);
    case "whitespace":
      return matchFlexible(input);
    case "tokens":
      return matchTokens(input);
    case "fuzzy":
      return matchFuzzy(input);
  }
}

function listLines(lines: readonly number[]): string {
  return `${lines.slice(0, 10).join(", ")}${lines.length > 10 ? ", …" : ""}`;
}

function applySpans(body: string, edits: readonly SpanEdit[]): string {
  let out = body;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  }
  return out;
}

/**
 * Replaces oldString with newString in a file's text through the matching layers (exact, line
 * endings, Unicode, whitespace-flexible, tokens, fuzzy), each tried only when the previous ones
 * found nothing, replacing only a unique match unless replaceAll. Keeps the file's line endings,
 * BOM and the characters outside the replaced span. Throws EditError when the edit cannot be made.
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
  const bom = original.startsWith(BOM);
  const body = bom ? original.slice(1) : original;
  const oldText = toLf(oldString);
  const newText = toLf(newString);
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

  const oldRaw = oldString.startsWith(BOM) ? oldString.slice(1) : oldString;
  const found = matchLayers(body, oldRaw, { body, oldText, newText }, options, where);
  if (found !== undefined) return { ...found, content: bom ? BOM + found.content : found.content };
  // Over-escaped strings: old_string only matches once its escapes are read. new_string is read
  // the same way unless it has real line breaks, which show it was not escaped.
  const oldPlain = unescapeOverEscaped(oldText);
  if (oldPlain !== oldText) {
    const newPlain = newText.includes("\n") ? newText : unescapeOverEscaped(newText);
    const plain = matchLayers(body, oldPlain, { body, oldText: oldPlain, newText: newPlain }, options, where);
    if (plain !== undefined) {
      return { ...plain, content: bom ? BOM + plain.content : plain.content, unescaped: true };
    }
  }
  throw notFound(body, oldText, where);
}

// The layers in order over one pair of strings: the first that finds old_string decides (an
// error when it finds several places without replaceAll); undefined when none finds it.
function matchLayers(
  body: string,
  oldRaw: string,
  input: LayerInput,
  options: EditOptions,
  where: string,
): EditResult | undefined {
  for (let strategy of EDIT_STRATEGIES) {
    let found = runLayer(strategy, input, oldRaw);
    if (found.edits.length === 0) continue;
    if (strategy === "exact" && input.oldText.includes("\n")) {
      // In a mixed-ending file the model cannot tell CRLF and LF copies apart: they all count.
      const anyEnding = runLayer("line-endings", input, oldRaw);
      if (anyEnding.edits.length > found.edits.length) {
        found = anyEnding;
        strategy = "line-endings";
      }
    }
    const lines = found.edits.map((e) => lineNumberAt(body, e.start));
    if (found.tie === true) {
      throw new EditError(
        "ambiguous",
        `old_string was not found exactly in ${where}; fuzzy matching finds several equally close places, so none was changed. Copy old_string exactly from the file, with more surrounding lines.`,
        2,
      );
    }
    if (found.edits.length > 1 && !options.replaceAll) {
      if (strategy === "exact") {
        throw new EditError(
          "not_unique",
          `old_string matches ${found.edits.length} times in ${where} (lines ${listLines(lines)}). Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence.`,
          found.edits.length,
          lines,
        );
      }
      throw new EditError(
        "ambiguous",
        `old_string was not found exactly in ${where}; with ${STRATEGY_NAMES[strategy]} it matches ${found.edits.length} places (lines ${listLines(lines)}). Copy old_string exactly from the file, with more surrounding lines, or set replace_all to true to replace every one.`,
        found.edits.length,
        lines,
      );
    }
    const updated = applySpans(body, found.edits);
    if (updated === body) {
      throw new EditError(
        "no_change",
        `old_string was found in ${where} (line ${lines[0]}, ${STRATEGY_NAMES[strategy]}) but replacing it with new_string changes nothing.`,
      );
    }
    return {
      content: updated,
      replacements: found.edits.length,
      strategy,
      firstLine: Math.min(...lines),
      ...(found.similarity !== undefined && { similarity: found.similarity }),
    };
  }
  return undefined;
}

function notFound(body: string, oldText: string, where: string): EditError {
  const lines = fileLines(body).map((l) => l.text);
  const candidate = closestCandidate(lines, modelLines(oldText));
  const tried = EDIT_STRATEGIES.map((s) =>
    s === "fuzzy" ? `fuzzy (within ${FUZZY_THRESHOLD * 100}%)` : STRATEGY_NAMES[s],
  ).join("; ");
  if (candidate === undefined) {
    return new EditError(
      "not_found",
      `old_string was not found in ${where}, and no line of it looks like old_string. Tried: ${tried}. Read the file again and copy old_string exactly from it, including whitespace.`,
    );
  }
  const first = candidate.start + 1;
  const last = candidate.start + candidate.lines.length;
  return new EditError(
    "not_found",
    `old_string was not found in ${where}. Tried: ${tried}.\nThe closest text is at lines ${first}-${last} (${Math.round(candidate.similarity * 100)}% similar):\n${numberLines(candidate.lines, first)}\nRead those lines again (read_file with offset ${first}) and copy old_string exactly from them, including whitespace.`,
    undefined,
    [first],
  );
}
