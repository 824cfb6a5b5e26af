/**
 * The writer of the UI's live area (everything below the finished transcript): a replacement for
 * Ink's log-update, put into the bundle in its place (scripts/ink-live-area.mjs).
 *
 * Ink's own writer compares a new frame with the last one line by line at the same positions, so
 * a line added to a streaming answer shifts the input box and the status line below it by one row
 * and all of them are written again, and a block moving into the transcript (<Static>) erases and
 * redraws the whole area. This writer instead keeps the unchanged lines at the top and the bottom
 * of the frame where the terminal has them: it makes room with insert-line (CSI L) or closes the
 * gap with delete-line (CSI M) and writes only the lines in between that differ. Transcript text
 * that was already on screen as the live answer becomes part of the scrollback where it stands,
 * without being written a second time.
 *
 * The arithmetic counts rows, so it relies on every line fitting the terminal's width (the layout
 * guarantees it) and on the live area being shorter than the screen; when either cannot hold it
 * falls back to erasing the area and writing the frame whole, as Ink does.
 */

import stringWidth from "string-width";

const CSI = "\x1b[";
const HIDE_CURSOR = `${CSI}?25l`;
const SHOW_CURSOR = `${CSI}?25h`;
const ERASE_LINE = `${CSI}2K`;
const ERASE_DOWN = `${CSI}J`;
const up = (n: number) => (n > 0 ? `${CSI}${n}A` : "");
const down = (n: number) => (n > 0 ? `${CSI}${n}B` : "");
/** Down `n` rows to the first column; never scrolls. */
const nextLine = (n: number) => (n > 0 ? `${CSI}${n}E` : "");
const toColumn = (x: number) => `${CSI}${x + 1}G`;
const insertLines = (n: number) => `${CSI}${n}L`;
const deleteLines = (n: number) => `${CSI}${n}M`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: it matches terminal escape sequences
const SGR = /\x1b\[[0-9;]*m/g;
const RESET = `${CSI}0m`;

/**
 * The bytes that change row `old` into `line` when they differ in a few short stretches of text (a
 * spinner's frame, a counter's digit): for each, the cursor goes to it, the styles in force there
 * are set again, the new text is written and the styles are reset. Undefined when a change is not
 * such a stretch (an escape sequence inside it, a different width), so the row is written whole.
 */
function patchOf(old: string, line: string): string | undefined {
  const stretches = differingStretches(old, line);
  if (stretches.length === 0 || stretches.length > 3) return undefined;
  let out = "";
  for (const [start, oldEnd, newEnd] of stretches) {
    const before = old.slice(start, oldEnd);
    const after = line.slice(start, newEnd);
    if (before.includes("\x1b") || after.includes("\x1b") || after.length > 16) return undefined;
    const prefix = line.slice(0, start);
    // Only whole characters: not from inside an escape sequence, a surrogate pair or a grapheme
    // cluster (a combining mark or a joiner on either side of the stretch).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence left open
    if (/\x1b[^m]*$|[\ud800-\udbff\u200d]$/.test(prefix)) return undefined;
    const next = line.charCodeAt(newEnd);
    const lowSurrogate = next >= 0xdc00 && next <= 0xdfff;
    if (lowSurrogate || /^[\p{M}\u200d]/u.test(before + after) || /^[\p{M}\u200d]/u.test(line.slice(newEnd)))
      return undefined;
    if (stringWidth(before) !== stringWidth(after)) return undefined;
    const styles = prefix.match(SGR)?.join("") ?? "";
    out += `${toColumn(stringWidth(prefix))}${styles}${after}${RESET}`;
  }
  return out;
}

/**
 * Where two rows differ, as [start, end in `old`, end in `line`]: one stretch between their common
 * start and end, or for rows of the same length each run of differing code units on its own.
 */
function differingStretches(old: string, line: string): [number, number, number][] {
  let start = 0;
  while (start < old.length && start < line.length && old[start] === line[start]) start++;
  let end = 0;
  while (
    end < old.length - start &&
    end < line.length - start &&
    old[old.length - 1 - end] === line[line.length - 1 - end]
  )
    end++;
  if (old.length !== line.length) return [[start, old.length - end, line.length - end]];
  const runs: [number, number, number][] = [];
  for (let i = start; i < old.length - end; ) {
    if (old[i] === line[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < old.length - end && old[j] !== line[j]) j++;
    runs.push([i, j, j]);
    i = j;
  }
  return runs;
}

/** Erases `count` rows upwards from the cursor's and leaves it at the first column of the top one. */
function eraseRows(count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) out += ERASE_LINE + (i < count - 1 ? up(1) : "");
  return count > 0 ? `${out}${toColumn(0)}` : out;
}

/** Where Ink asked the terminal's cursor to be shown (an input's caret), in frame cells. */
export interface CursorPosition {
  readonly x: number;
  readonly y: number;
}

/** The stream the area is drawn on: a terminal (rows read on every frame, they change on resize). */
export interface LiveAreaStream {
  write(text: string): unknown;
  readonly rows?: number;
  readonly isTTY?: boolean;
}

/** Ink's log-update contract, plus `insertAbove` for transcript output printed above the area. */
export interface LiveArea {
  /** Draws `frame` (Ink's output, normally ending in a newline); false when nothing changed. */
  (frame: string): boolean;
  /** Erases the area and forgets it (the cursor ends where the area began). */
  clear(): void;
  /** Forgets the area, leaving it on screen (Ink is done with it). */
  done(): void;
  /** Takes `frame` as what the screen shows without writing it. */
  sync(frame: string): void;
  setCursorPosition(position: CursorPosition | undefined): void;
  isCursorDirty(): boolean;
  /** Whether drawing `frame` would write anything. */
  willRender(frame: string): boolean;
  /** Prints `text` (lines ending in newlines) above the area for good, then draws `frame` below it. */
  insertAbove(text: string, frame: string): void;
}

/** Visible lines of a frame: its last, empty piece after a final newline is not a line. */
function linesOf(frame: string): string[] {
  if (frame === "") return [];
  const lines = frame.split("\n");
  if (frame.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * The bytes that turn `before` (the rows on screen, the cursor at the start of the row below them)
 * into `after` (the cursor left at the start of the row below it), or undefined when the rows
 * involved do not all fit on a screen of `rows` rows.
 */
export function frameTransition(
  before: readonly string[],
  after: readonly string[],
  rows: number,
): string | undefined {
  const n = before.length;
  const m = after.length;
  if (n >= rows || m >= rows) return undefined;
  let p = 0;
  while (p < n && p < m && before[p] === after[p]) p++;
  if (p === n && p === m) return "";
  // The bottom rows are kept where the terminal has them, moved by the change in height: as many
  // as save the most bytes, counting the rows that are the same in both (a changed status line
  // under an unchanged input box is rewritten alone).
  let s = 0;
  let saved = 0;
  for (let k = 1, sum = 0; k <= Math.min(n, m) - p; k++) {
    const old = before[n - k] as string;
    if (old === after[m - k]) sum += old.length + 1;
    if (sum > saved) {
      saved = sum;
      s = k;
    }
  }

  // `screen` follows what the rows hold as the moves below happen; `at` is the cursor's row.
  const screen: (string | undefined)[] = [...before];
  let at = n;
  let out = "";
  /** Rows made blank by insert-line. */
  const opened = new Set<number>();
  const grow = m - n;
  if (grow > 0 && s > 0) {
    // Room for the new rows above the unchanged bottom: newlines below the area scroll the screen
    // when the area sits at its bottom (the cursor then stays on the last row, the content moves
    // up), or move down onto empty rows otherwise: either way the cursor ends `grow` rows further
    // down the content. Inserting lines above the unchanged bottom then pushes it down onto them.
    out += "\n".repeat(grow) + up(grow + s) + insertLines(grow);
    screen.splice(n - s, 0, ...new Array<undefined>(grow));
    for (let i = n - s; i < m - s; i++) opened.add(i);
    at = n - s;
  } else if (grow < 0 && s > 0) {
    out += up(s - grow) + deleteLines(-grow);
    screen.splice(n - s + grow, -grow);
    at = n - s + grow;
  }
  out += up(at - p) + toColumn(0);
  at = p;
  let skipped = 0;
  for (let i = p; i < m; i++) {
    if (i < screen.length && screen[i] === after[i]) {
      skipped++;
      continue;
    }
    const old = i < screen.length ? screen[i] : undefined;
    const line = after[i] as string;
    // A line that only grew (streamed text): its new end is written after the old one. Ink closes
    // every style at the end of a line, so the old text leaves no style open.
    const patch = old ? patchOf(old, line) : undefined;
    if (old && line.startsWith(old))
      out += `${nextLine(skipped)}${toColumn(stringWidth(old))}${line.slice(old.length)}\n`;
    else if (patch !== undefined) out += `${nextLine(skipped)}${patch}\n`;
    // A row opened by insert-line is blank already. Elsewhere erase first: erasing after a line
    // that fills the width would take its last cell with it.
    else out += `${nextLine(skipped)}${opened.has(i) ? "" : ERASE_LINE}${line}\n`;
    skipped = 0;
    at = i + 1;
  }
  out += nextLine(m - at);
  // A frame shorter than the one before, with no unchanged bottom moved up: rows below it go.
  if (grow < 0 && s === 0) out += ERASE_DOWN;
  return out;
}

/**
 * The bytes that print `above` (transcript lines, for good) where `before` stands and draw `after`
 * below them, or undefined when the rows involved cannot fit on a screen of `rows` rows. Lines at
 * the top of `before` that `above` starts with are on screen already and stay where they are; the
 * rest of `above` goes in above the area in pieces small enough for the screen, so the area is
 * moved down rather than written again.
 */
export function insertTransition(
  before: readonly string[],
  above: readonly string[],
  after: readonly string[],
  rows: number,
): string | undefined {
  const whole = frameTransition(before, [...above, ...after], rows);
  if (whole !== undefined) return whole;
  let kept = 0;
  while (kept < above.length && kept < before.length && above[kept] === before[kept]) kept++;
  const current = before.slice(kept);
  let out = "";
  for (let at = kept; at < above.length; ) {
    const room = rows - 1 - current.length;
    if (room < 1) return undefined;
    const piece = above.slice(at, at + room);
    const moves = frameTransition(current, [...piece, ...current], rows);
    if (moves === undefined) return undefined;
    out += moves;
    at += piece.length;
  }
  const last = frameTransition(current, after, rows);
  return last === undefined ? undefined : out + last;
}

/**
 * The bottom of a frame taller than the screen, one row short of it, and how many rows were cut
 * from its top. Rows that scroll off the top of the screen can never be erased again: a taller
 * area would leave its top behind on every redraw (a dead spinner, a second input box). The
 * bottom is what matters: the answers of a prompt, the input and the status line.
 */
export function fitFrame(frame: string, rows: number): { readonly frame: string; readonly cut: number } {
  const lines = linesOf(frame);
  const room = Math.max(1, rows - 1);
  if (lines.length <= room) return { frame, cut: 0 };
  const cut = lines.length - room;
  const kept = lines.slice(cut).join("\n");
  return { frame: frame.endsWith("\n") ? `${kept}\n` : kept, cut };
}

/** Each live area's "erase and draw whole next time" (one per renderer: one in practice). */
const erasers = new Set<() => void>();

/**
 * Erases every live area from the screen and has the next frame drawn whole, even if it did not
 * change: before the process is suspended, as the shell's lines will follow where the area was.
 */
export function eraseLiveAreas(): void {
  for (const erase of erasers) erase();
}

/** A live area drawn on `stream`; the cursor is hidden while it is drawn unless `showCursor`. */
export function createLiveArea(stream: LiveAreaStream, { showCursor = false } = {}): LiveArea {
  let previousFrame = "";
  let previousLines: string[] = [];
  let hiddenCursor = false;
  let cursor: CursorPosition | undefined;
  let cursorDirty = false;
  let shownCursor: CursorPosition | undefined;
  /** Erased for a suspend: the renderer must draw again although its frame did not change. */
  let erased = false;

  const activeCursor = () => (cursorDirty ? cursor : undefined);
  const sameCursor = (a: CursorPosition | undefined, b: CursorPosition | undefined) =>
    a?.x === b?.x && a?.y === b?.y;
  const hasChanges = (frame: string, wanted: CursorPosition | undefined) =>
    frame !== previousFrame || !sameCursor(wanted, shownCursor);
  /** Rows the previous frame occupies, counting the cursor's row below a final newline. */
  const previousRowCount = () => previousFrame.split("\n").length;
  /** From a shown caret back to the start of the row below the area. */
  const returnToBottom = () => {
    if (!shownCursor) return "";
    return HIDE_CURSOR + down(previousRowCount() - 1 - shownCursor.y) + toColumn(0);
  };
  /** From the row below the area to the wanted caret, shown. */
  const cursorSuffix = (frame: string, wanted: CursorPosition | undefined) => {
    if (!wanted) return "";
    return up(linesOf(frame).length - wanted.y) + toColumn(wanted.x) + SHOW_CURSOR;
  };
  const hide = () => {
    if (showCursor || hiddenCursor) return;
    if (stream.isTTY !== false) stream.write(HIDE_CURSOR);
    hiddenCursor = true;
  };
  const remember = (frame: string, lines: string[], wanted: CursorPosition | undefined) => {
    previousFrame = frame;
    previousLines = lines;
    shownCursor = wanted ? { ...wanted } : undefined;
  };
  /** Everything between the area's old rows and `frame` drawn below `above` (transcript lines). */
  const transition = (above: string, frame: string): string => {
    const rows = stream.rows ?? 24;
    const incremental =
      previousFrame.endsWith("\n") && frame.endsWith("\n") && (above === "" || above.endsWith("\n"));
    const moves = incremental
      ? insertTransition(previousLines, linesOf(above), linesOf(frame), rows)
      : undefined;
    if (moves !== undefined) return moves;
    return eraseRows(previousFrame === "" ? 0 : previousRowCount()) + above + frame;
  };

  /** The frame as it fits the screen, with the wanted caret moved along (hidden when cut off). */
  const fit = (frame: string): { frame: string; wanted: CursorPosition | undefined } => {
    const fitted = fitFrame(frame, stream.rows ?? 24);
    const caret = activeCursor();
    cursorDirty = false;
    if (fitted.cut === 0 || caret === undefined) return { frame: fitted.frame, wanted: caret };
    const y = caret.y - fitted.cut;
    return { frame: fitted.frame, wanted: y < 0 ? undefined : { x: caret.x, y } };
  };

  const render = ((whole: string): boolean => {
    hide();
    erased = false;
    const { frame, wanted } = fit(whole);
    if (!hasChanges(frame, wanted)) return false;
    if (frame === previousFrame) {
      // Only the caret moved.
      stream.write(returnToBottom() + cursorSuffix(frame, wanted));
      shownCursor = wanted ? { ...wanted } : undefined;
      return true;
    }
    stream.write(returnToBottom() + transition("", frame) + cursorSuffix(frame, wanted));
    remember(frame, linesOf(frame), wanted);
    return true;
  }) as LiveArea;

  render.insertAbove = (text, whole) => {
    hide();
    erased = false;
    const { frame, wanted } = fit(whole);
    stream.write(returnToBottom() + transition(text, frame) + cursorSuffix(frame, wanted));
    remember(frame, linesOf(frame), wanted);
  };
  render.clear = () => {
    stream.write(returnToBottom() + eraseRows(previousFrame === "" ? 0 : previousRowCount()));
    remember("", [], undefined);
  };
  render.done = () => {
    remember("", [], undefined);
    if (!showCursor && hiddenCursor) {
      if (stream.isTTY !== false) stream.write(SHOW_CURSOR);
      hiddenCursor = false;
    }
  };
  render.sync = (whole) => {
    const { frame, wanted } = fit(whole);
    if (!wanted && shownCursor) stream.write(HIDE_CURSOR);
    if (wanted) stream.write(cursorSuffix(frame, wanted));
    remember(frame, linesOf(frame), wanted);
  };
  render.setCursorPosition = (position) => {
    cursor = position;
    cursorDirty = true;
  };
  // Ink draws an unchanged frame only when the caret moved: an erased area says so to be drawn.
  render.isCursorDirty = () => cursorDirty || erased;
  render.willRender = (whole) =>
    erased || hasChanges(fitFrame(whole, stream.rows ?? 24).frame, activeCursor());
  const erase = () => {
    render.clear();
    erased = true;
  };
  erasers.add(erase);
  const finish = render.done;
  render.done = () => {
    erasers.delete(erase);
    finish();
  };
  return render;
}

/** The module shape Ink imports its log-update as. */
const liveAreaModule = {
  create: (stream: LiveAreaStream, options: { showCursor?: boolean } = {}) => createLiveArea(stream, options),
};
export default liveAreaModule;
