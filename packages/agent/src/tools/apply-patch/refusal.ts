import {
  type FileIndentation,
  fittingTransforms,
  type IndentPair,
  type IndentTransform,
  reindentAdded,
} from "./indentation.js";
import { isBlank, keyOf, LAYER_NAMES, type LineKeys, leadOf, MATCH_LAYERS } from "./layers.js";
import { PatchApplyError, type PatchChunk } from "./types.js";

/** Which hunk a refusal is about, as the model wrote it. */
export interface HunkRef {
  readonly path: string;
  /** 1-based. */
  readonly hunk: number;
  readonly total: number;
  readonly chunk: PatchChunk;
}

// Above this many line comparisons, a region with no line in common with the hunk is not looked
// for by its words, so that a refusal on a huge file stays fast.
const WORD_SCAN_BUDGET = 400_000;

function label(ref: HunkRef): string {
  const at = ref.chunk.anchors.length > 0 ? ref.chunk.anchors.map((a) => `@@ ${a}`).join(", ") : "@@";
  return `${ref.path}: hunk ${ref.hunk} of ${ref.total} (${at})`;
}

function numbered(lineNumber: number, width: number, text: string, mark: string): string {
  return `${mark} ${String(lineNumber).padStart(width)} | ${text}`;
}

/** One line of a hunk: its tag, its text, and its index among the old lines or the new lines. */
export interface HunkLine {
  readonly tag: " " | "-" | "+";
  readonly text: string;
  readonly old?: number;
  readonly added?: number;
}

/** The hunk's lines in diff order, ' ' context, '-' removed, '+' added, as parsed. */
export function hunkBody(chunk: PatchChunk): HunkLine[] {
  const body: HunkLine[] = [];
  let old = 0;
  const flushTo = (end: number) => {
    for (; old < end; old++) body.push({ tag: "-", text: chunk.oldLines[old] as string, old });
  };
  chunk.newLines.forEach((text, k) => {
    const from = chunk.contextIndex[k] ?? -1;
    if (from >= 0) {
      flushTo(from);
      body.push({ tag: " ", text: chunk.oldLines[from] as string, old: from });
      old = from + 1;
    } else {
      const next = chunk.contextIndex.slice(k + 1).find((c) => c >= 0);
      flushTo(next ?? chunk.oldLines.length);
      body.push({ tag: "+", text, added: k });
    }
  });
  flushTo(chunk.oldLines.length);
  return body;
}

const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * The window of the file, as long as the pattern, sharing the most lines with it (compared
 * loosely); when no line is shared, the window sharing the most words. Only to show the model
 * where to look, never to apply anything.
 */
function closestRegion(keys: LineKeys, pattern: readonly string[]): { start: number; same: number } {
  const lines = keys.lines;
  const fileKeys = keys.of("unicode");
  const width = Math.min(pattern.length, lines.length);
  const windows = lines.length - width + 1;
  const patternKeys = pattern.map((line) => keyOf(line, "unicode"));
  // Each shared line votes for the window it would put the hunk in.
  const wanted = new Map<string, number[]>();
  patternKeys.forEach((k, j) => {
    if (k === "" || j >= width) return;
    const list = wanted.get(k);
    if (list === undefined) wanted.set(k, [j]);
    else list.push(j);
  });
  const votes = new Uint32Array(windows);
  fileKeys.forEach((k, p) => {
    for (const j of wanted.get(k) ?? [])
      if (p - j >= 0 && p - j < windows) votes[p - j] = (votes[p - j] as number) + 1;
  });
  let best = { start: 0, same: 0 };
  votes.forEach((same, start) => {
    if (same > best.same) best = { start, same };
  });
  if (best.same > 0 || windows * width > WORD_SCAN_BUDGET) return best;
  const patternWords = pattern.map((line) => new Set(line.match(WORD) ?? []));
  const fileWords = lines.map((line) => line.match(WORD) ?? []);
  let bestShared = 0;
  for (let start = 0; start < windows; start++) {
    let shared = 0;
    for (let j = 0; j < width; j++) {
      const words = patternWords[j] as Set<string>;
      if (words.size === 0) continue;
      let common = 0;
      for (const w of fileWords[start + j] as string[]) if (words.has(w)) common++;
      shared += common / words.size;
    }
    if (shared > bestShared) {
      bestShared = shared;
      best = { start, same: 1 };
    }
  }
  return best;
}

/** The hunk's added lines in the file's indentation when the region's lines show one transform. */
function addedInFileStyle(
  chunk: PatchChunk,
  region: readonly string[],
  file: FileIndentation,
): readonly string[] {
  const pairs: IndentPair[] = [];
  chunk.oldLines.forEach((line, j) => {
    const have = region[j];
    if (have !== undefined && !isBlank(line) && keyOf(line, "unicode") === keyOf(have, "unicode")) {
      pairs.push({ hunk: leadOf(line), file: leadOf(have) });
    }
  });
  const transforms = fittingTransforms(pairs, file);
  if (transforms.length !== 1) return chunk.newLines;
  return (
    reindentAdded(transforms[0] as IndentTransform, chunk.newLines, chunk.contextIndex, region, file) ??
    chunk.newLines
  );
}

/**
 * Refuses a hunk whose old lines are nowhere in the file: names it, shows the closest region with
 * line numbers and marks what differs, and gives the hunk rebuilt from the file's own lines.
 */
export function notFoundError(
  ref: HunkRef,
  keys: LineKeys,
  pattern: readonly string[],
  from: number,
  anchorMissing: string | undefined,
  file: () => FileIndentation,
): PatchApplyError {
  const tried = MATCH_LAYERS.map((l) => LAYER_NAMES[l]).join(", then ");
  const parts = [
    `${label(ref)}: its context and removed lines are not in the file${from > 0 ? ` after line ${from}` : ""} (compared by ${tried}).`,
  ];
  if (anchorMissing !== undefined) parts.push(`Its @@ line '${anchorMissing}' is not in the file either.`);
  const lines = keys.lines;
  const closest = closestRegion(keys, pattern);
  const regionStart = closest.start;
  const meaningful = pattern.filter((line) => line.trim() !== "").length;
  if (lines.length === 0 || closest.same <= 0) {
    parts.push("No line of the hunk is in the file: read the file again before writing the hunk.");
    return new PatchApplyError(ref.path, parts.join("\n"), ref.hunk);
  }
  const width = String(regionStart + pattern.length).length;
  const shown: string[] = [];
  let textDiffers = 0;
  const fileLine = (j: number) => lines[regionStart + j] as string;
  for (let j = 0; j < pattern.length && regionStart + j < lines.length; j++) {
    const have = fileLine(j);
    const want = pattern[j] as string;
    if (have === want) {
      shown.push(numbered(regionStart + j + 1, width, have, " "));
    } else {
      const whitespaceOnly = keyOf(have, "unicode") === keyOf(want, "unicode");
      if (!whitespaceOnly) textDiffers++;
      shown.push(numbered(regionStart + j + 1, width, have, whitespaceOnly ? "~" : ">"));
      shown.push(`${" ".repeat(width + 2)} | ${want}    <- the hunk's line`);
    }
  }
  parts.push(
    `The closest region is lines ${regionStart + 1}-${regionStart + pattern.length} ('>' marks a line whose text differs, '~' one that differs only in whitespace; the hunk's line follows it):`,
    ...shown,
  );
  // The hunk rebuilt from the file is offered only when the region is plainly the hunk's place with
  // a line or two remembered wrong; a region that merely shares lines would make a wrong hunk.
  if (textDiffers <= 2 && textDiffers * 2 < meaningful) {
    const region = lines.slice(regionStart, regionStart + pattern.length);
    const added = addedInFileStyle(ref.chunk, region, file());
    const rebuilt = hunkBody(ref.chunk).map((line) =>
      line.tag === "+" ? `+${added[line.added as number]}` : `${line.tag}${fileLine(line.old as number)}`,
    );
    parts.push(
      `If your change still applies there, send hunk ${ref.hunk} again with its context and removed lines as the file has them:`,
      "@@",
      ...rebuilt,
    );
  } else {
    parts.push(
      `Send hunk ${ref.hunk} again with its context and removed lines copied from the file as it is now. If its lines are several hunks, start each with its own @@ line.`,
    );
  }
  return new PatchApplyError(ref.path, parts.join("\n"), ref.hunk);
}

/** Refuses a hunk whose old lines fit more than one place: a first match is not proof of the place meant. */
export function ambiguousError(
  ref: HunkRef,
  patternLength: number,
  indexes: readonly number[],
  layer: string,
  from: number,
): PatchApplyError {
  const places = indexes
    .slice(0, 5)
    .map((i) => (patternLength === 1 ? `line ${i + 1}` : `lines ${i + 1}-${i + patternLength}`));
  const more = indexes.length > 5 ? " and more" : "";
  return new PatchApplyError(
    ref.path,
    `${label(ref)}: its context and removed lines fit ${indexes.length > 5 ? "more than 5" : indexes.length} places${from > 0 ? ` after line ${from}` : ""} (${layer}): ${places.join(", ")}${more}. A hunk must fit exactly one place: add context lines that differ between these places, or an @@ line naming the enclosing function or class, and send it again.`,
    ref.hunk,
  );
}

/** Refuses a hunk whose place is known only with whitespace set aside, when that leaves its result open. */
export function indentationError(
  ref: HunkRef,
  matched: readonly string[],
  start: number,
  reason: string,
): PatchApplyError {
  const width = String(start + matched.length).length;
  const shown = matched.map((line, j) => {
    const visible = line.replace(/^[ \t]+/, (lead) =>
      lead.replaceAll("\t", "\u2192").replaceAll(" ", "\u00B7"),
    );
    return numbered(start + j + 1, width, visible, " ");
  });
  return new PatchApplyError(
    ref.path,
    [
      `${label(ref)}: it fits lines ${start + 1}-${start + matched.length} only with its whitespace set aside, and ${reason}. Send it again with the whitespace the file has; there the lines are (\u2192 a tab, \u00B7 a space):`,
      ...shown,
    ].join("\n"),
    ref.hunk,
  );
}

/** Refuses a pure addition whose @@ line is missing or names several lines. */
export function anchorError(ref: HunkRef, anchor: string, count: number, from: number): PatchApplyError {
  const what =
    count === 0
      ? "is not in the file"
      : `names ${count} lines${from > 0 ? ` after line ${from}` : ""}, so the place of the added lines is not known`;
  return new PatchApplyError(
    ref.path,
    `${label(ref)}: the hunk only adds lines, and its @@ line '${anchor}' ${what}. Add context lines (' ') around the added lines, copied from the file, and send it again.`,
    ref.hunk,
  );
}
