import { decodeText, encodeText, normalizeUnicode, splitLines } from "../edit/normalize.js";
import {
  describeTransform,
  fileIndentation,
  fittingTransforms,
  type IndentTransform,
  reindentAdded,
} from "./indentation.js";
import { isBlank, LAYER_NAMES, LineKeys, type MatchLayer } from "./layers.js";
import {
  ambiguousError,
  anchorError,
  type HunkRef,
  hunkBody,
  indentationError,
  notFoundError,
} from "./refusal.js";
import { anchorPlaces, FileIndex, type HunkFit, type Seek, seekHunk } from "./seek.js";
import { type HunkPiece, splitHunk } from "./split.js";
import type { PatchChunk } from "./types.js";

/** How one hunk that was not an exact match was placed. */
export interface HunkNote {
  /** 1-based. */
  readonly hunk: number;
  /** The layer that found it ("exact" when only its @@ line was set aside). */
  readonly tolerance: MatchLayer;
  /** Its @@ line did not lead to it, and it was placed by its context alone, which fits one place. */
  readonly anchorIgnored?: boolean;
  /** The hunk was several hunks written without @@ lines between them, applied as this many. */
  readonly pieces?: number;
  /** How the added lines were re-indented, when they were. */
  readonly indentation?: string;
}

/** The new content of an updated file and how each hunk that was not an exact match was placed. */
export interface ChunksResult {
  readonly content: string;
  readonly fuzzy: readonly HunkNote[];
}

interface Replacement {
  readonly start: number;
  readonly length: number;
  readonly lines: readonly string[];
}

const BOM = "\uFEFF";

/**
 * Applies an Update's hunks to a file's text, in file order, each looked for after the previous
 * one. A hunk applies only where its old lines fit exactly one place under the strictest layer
 * that finds any; its added lines are then re-expressed as the file writes them (indentation,
 * punctuation), and context lines keep the file's text. Keeps the file's line ending and BOM
 * unless a hunk removes the BOM. Throws PatchApplyError naming the hunk and what to send instead.
 */
export function applyChunks(original: string, chunks: readonly PatchChunk[], path: string): ChunksResult {
  const { text, eol, bom } = decodeText(original);
  const lines = splitLines(text);
  const endsWithBreak = text === "" || text.endsWith("\n");
  const index = new FileIndex(new LineKeys(lines), fileIndentation);
  const replacements: Replacement[] = [];
  const notes: HunkNote[] = [];
  let keepBom = bom;
  let cursor = 0;

  chunks.forEach((chunk, i) => {
    const ref: HunkRef = { path, hunk: i + 1, total: chunks.length, chunk };
    const explicitBom = chunk.oldLines[0]?.startsWith(BOM) === true;
    const stripBom = (list: readonly string[]) =>
      explicitBom ? list.map((line) => (line.startsWith(BOM) ? line.slice(1) : line)) : list;

    // Where the @@ lines lead: each is looked for after the previous one.
    let anchorFrom = cursor;
    let anchorMissing: string | undefined;
    for (const anchor of chunk.anchors) {
      const places = anchorPlaces(index, anchor, anchorFrom);
      if (places[0] === undefined) {
        anchorMissing = anchor;
        break;
      }
      if (chunk.oldLines.length === 0 && places.length > 1 && anchor === chunk.anchors.at(-1)) {
        throw anchorError(ref, anchor, places.length, anchorFrom);
      }
      anchorFrom = places[0] + 1;
    }

    if (chunk.oldLines.length === 0) {
      // A pure addition goes after its @@ line, or at the end of the file without one.
      if (anchorMissing !== undefined) throw anchorError(ref, anchorMissing, 0, cursor);
      const at = chunk.anchors.length > 0 && !chunk.atEndOfFile ? anchorFrom : lines.length;
      replacements.push({ start: at, length: 0, lines: chunk.newLines });
      cursor = at;
      return;
    }

    let pattern = stripBom(chunk.oldLines);
    let replacement = stripBom(chunk.newLines);
    let contextIndex = chunk.contextIndex;
    let placed = place(index, pattern, chunk, cursor, anchorFrom, anchorMissing);
    if (placed.seek.kind === "none" && pattern.length > 1 && pattern.at(-1) === "") {
      // A trailing empty context line usually stands for the file's final newline.
      pattern = pattern.slice(0, -1);
      if (replacement.at(-1) === "") {
        replacement = replacement.slice(0, -1);
        contextIndex = contextIndex.slice(0, -1);
      }
      placed = place(index, pattern, chunk, cursor, anchorFrom, anchorMissing);
    }
    const { seek, from } = placed;
    if (seek.kind === "none" && !explicitBom) {
      const pieces = splitHunk(index.keys, chunk, cursor);
      if (pieces !== undefined) {
        replacements.push(...pieces);
        notes.push({ hunk: ref.hunk, tolerance: "exact", pieces: pieces.length });
        const lastPiece = pieces.at(-1) as HunkPiece;
        cursor = lastPiece.start + lastPiece.length;
        return;
      }
    }
    if (seek.kind === "none")
      throw notFoundError(ref, index.keys, pattern, from, anchorMissing, () => index.fileIndentation());
    if (seek.kind === "ambiguous") {
      throw ambiguousError(ref, pattern.length, seek.indexes, LAYER_NAMES[seek.layer], from);
    }
    const fit = seek.fit;
    if (explicitBom && fit.index !== 0)
      throw notFoundError(ref, index.keys, pattern, 0, anchorMissing, () => index.fileIndentation());
    if (explicitBom) keepBom = chunk.newLines[0]?.startsWith(BOM) === true;

    const matched = lines.slice(fit.index, fit.index + pattern.length);
    const fitted = fitToFile(ref, fit, matched, pattern, replacement, contextIndex, index);
    if (fit.layer !== "exact" || placed.anchorIgnored) {
      notes.push({
        hunk: ref.hunk,
        tolerance: fit.layer,
        ...(placed.anchorIgnored && { anchorIgnored: true }),
        ...(fitted.indentation !== undefined && { indentation: fitted.indentation }),
      });
    }
    replacements.push({ start: fit.index, length: pattern.length, lines: fitted.lines });
    cursor = fit.index + pattern.length;
  });

  const out: string[] = [];
  let next = 0;
  for (const r of replacements) {
    for (let i = next; i < r.start; i++) out.push(lines[i] as string);
    out.push(...r.lines);
    next = r.start + r.length;
  }
  for (let i = next; i < lines.length; i++) out.push(lines[i] as string);
  let updated = out.join("\n");
  // As in codex, lines a hunk wrote at the end of the file end with a line break; a file whose
  // last line no hunk touched keeps its final-newline state.
  const touchedEnd = replacements.some((r) => r.start + r.length >= lines.length);
  if (out.length > 0 && (endsWithBreak || touchedEnd)) updated += "\n";
  return { content: encodeText(updated, eol, keepBom), fuzzy: notes };
}

/**
 * Looks for the hunk after its @@ lines; when they do not lead to it (missing, or naming a line
 * after the hunk), looks again from the previous hunk on, by the context alone. Either way the
 * place must be the only one.
 */
function place(
  index: FileIndex,
  pattern: readonly string[],
  chunk: PatchChunk,
  cursor: number,
  anchorFrom: number,
  anchorMissing: string | undefined,
): { seek: Seek; from: number; anchorIgnored: boolean } {
  if (anchorMissing === undefined) {
    const seek = seekHunk(index, pattern, anchorFrom, chunk.atEndOfFile);
    if (seek.kind !== "none" || anchorFrom === cursor)
      return { seek, from: anchorFrom, anchorIgnored: false };
  }
  const seek = seekHunk(index, pattern, cursor, chunk.atEndOfFile);
  return { seek, from: cursor, anchorIgnored: chunk.anchors.length > 0 && seek.kind === "found" };
}

/**
 * Context lines keep the file's own text; added lines take the file's indentation (under the
 * one transform that maps every context and removed line) and its punctuation where the hunk
 * replaced the file's ASCII with typographic characters.
 */
function fitToFile(
  ref: HunkRef,
  fit: HunkFit,
  matched: readonly string[],
  pattern: readonly string[],
  replacement: readonly string[],
  contextIndex: readonly number[],
  index: FileIndex,
): { lines: string[]; indentation?: string } {
  if (fit.layer === "exact") return { lines: [...replacement] };
  let added: readonly string[] = replacement;
  let indentation: string | undefined;
  if (fit.layer === "indentation" || fit.layer === "unicode") {
    const transforms = fittingTransforms(fit.pairs, index.fileIndentation());
    if (
      transforms.some((t) => t.kind === "deeper" || t.kind === "shallower") &&
      changesBlankLine(ref.chunk)
    ) {
      throw indentationError(
        ref,
        matched,
        fit.index,
        "it replaces a blank line with a blank line, a change of whitespace alone that such a match cannot confirm",
      );
    }
    const results = transforms.map((t) =>
      reindentAdded(t, replacement, contextIndex, matched, index.fileIndentation()),
    );
    const first = results[0];
    const agreed =
      first !== undefined &&
      results.every((r) => r !== undefined && r.length === first.length && r.every((l, i) => l === first[i]));
    if (!agreed || first === undefined) {
      const reason = `its added lines cannot be re-indented to the file's style without guessing (${transforms.map(describeTransform).join(" or ")})`;
      throw indentationError(ref, matched, fit.index, reason);
    }
    added = first;
    const used = transforms[0] as IndentTransform;
    if (used.kind !== "same") indentation = describeTransform(used);
  }
  if (fit.layer === "unicode") added = mapPunctuation(added, contextIndex, pattern, matched);
  // In a file with mixed line endings the CRLF lines keep their \r as text: added lines among
  // them end the same way.
  const crlf =
    matched.length > 0 && matched.every((l) => l.endsWith("\r")) && !pattern.some((l) => l.endsWith("\r"));
  const lines = added.map((line, i) => {
    const from = contextIndex[i] ?? -1;
    if (from >= 0) return matched[from] as string;
    return crlf && !line.endsWith("\r") ? `${line}\r` : line;
  });
  return indentation === undefined ? { lines } : { lines, indentation };
}

/** Whether some change of the hunk both removes and adds a blank line: an edit of whitespace only. */
function changesBlankLine(chunk: PatchChunk): boolean {
  let removed = false;
  let added = false;
  for (const line of hunkBody(chunk)) {
    if (line.tag === " ") {
      removed = false;
      added = false;
    } else if (isBlank(line.text)) {
      if (line.tag === "-") removed = true;
      else added = true;
      if (removed && added) return true;
    }
  }
  return false;
}

/**
 * Typographic characters the hunk's old lines used where the file has ASCII are written as the
 * file's ASCII in the added lines too; a character the file itself uses in those lines is kept.
 */
function mapPunctuation(
  added: readonly string[],
  contextIndex: readonly number[],
  pattern: readonly string[],
  matched: readonly string[],
): string[] {
  const inFile = new Set(matched.join("\n"));
  const mapped = new Set<string>();
  for (const line of pattern) {
    for (const ch of line) {
      if (ch.charCodeAt(0) > 0x7f && !inFile.has(ch) && normalizeUnicode(ch) !== ch) mapped.add(ch);
    }
  }
  if (mapped.size === 0) return [...added];
  return added.map((line, i) =>
    (contextIndex[i] ?? -1) >= 0
      ? line
      : [...line].map((ch) => (mapped.has(ch) ? normalizeUnicode(ch) : ch)).join(""),
  );
}
