/** The text being edited and the cursor's offset in it (0…text.length). */
export interface EditorState {
  readonly text: string;
  readonly cursor: number;
}

/** An empty editor. */
export const EMPTY_EDITOR: EditorState = { text: "", cursor: 0 };

/** An editor holding `text` with the cursor at its end. */
export function editorWith(text: string): EditorState {
  return { text, cursor: text.length };
}

/** Inserts `chunk` at the cursor (line endings normalised to \n). */
export function insert(state: EditorState, chunk: string): EditorState {
  const clean = chunk.replace(/\r\n?/g, "\n").replace(/\t/g, "  ");
  return {
    text: state.text.slice(0, state.cursor) + clean + state.text.slice(state.cursor),
    cursor: state.cursor + clean.length,
  };
}

/** Deletes the character before the cursor. */
export function backspace(state: EditorState): EditorState {
  if (state.cursor === 0) return state;
  const step = charBefore(state.text, state.cursor).length;
  return {
    text: state.text.slice(0, state.cursor - step) + state.text.slice(state.cursor),
    cursor: state.cursor - step,
  };
}

/** Deletes the character under the cursor. */
export function deleteForward(state: EditorState): EditorState {
  if (state.cursor >= state.text.length) return state;
  const step = charAt(state.text, state.cursor).length;
  return {
    text: state.text.slice(0, state.cursor) + state.text.slice(state.cursor + step),
    cursor: state.cursor,
  };
}

/** Moves the cursor one character left or right. */
export function moveHorizontal(state: EditorState, direction: -1 | 1): EditorState {
  if (direction < 0)
    return { ...state, cursor: Math.max(0, state.cursor - charBefore(state.text, state.cursor).length) };
  return {
    ...state,
    cursor: Math.min(state.text.length, state.cursor + charAt(state.text, state.cursor).length),
  };
}

/** Moves to the start or end of the current line. */
export function moveLineEdge(state: EditorState, edge: "start" | "end"): EditorState {
  const { start, end } = lineBounds(state.text, state.cursor);
  return { ...state, cursor: edge === "start" ? start : end };
}

/**
 * Moves the cursor to the line above or below, keeping its column where possible. Undefined when
 * there is no such line (so the caller can page through history instead).
 */
export function moveVertical(state: EditorState, direction: -1 | 1): EditorState | undefined {
  const { start, end } = lineBounds(state.text, state.cursor);
  const column = state.cursor - start;
  if (direction < 0) {
    if (start === 0) return undefined;
    const above = lineBounds(state.text, start - 1);
    return { ...state, cursor: Math.min(above.start + column, above.end) };
  }
  if (end >= state.text.length) return undefined;
  const below = lineBounds(state.text, end + 1);
  return { ...state, cursor: Math.min(below.start + column, below.end) };
}

/** Deletes the word before the cursor (Ctrl+W, Alt+Backspace). */
export function deleteWordBefore(state: EditorState): EditorState {
  const cut = state.text.slice(0, state.cursor).replace(/\S*\s*$/, "").length;
  return { text: state.text.slice(0, cut) + state.text.slice(state.cursor), cursor: cut };
}

/** Deletes from the cursor to the end of the line (Ctrl+K). */
export function killToLineEnd(state: EditorState): EditorState {
  const { end } = lineBounds(state.text, state.cursor);
  const to = end === state.cursor && end < state.text.length ? end + 1 : end;
  return { text: state.text.slice(0, state.cursor) + state.text.slice(to), cursor: state.cursor };
}

/** Deletes from the start of the line to the cursor (Ctrl+U). */
export function killToLineStart(state: EditorState): EditorState {
  const { start } = lineBounds(state.text, state.cursor);
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

/** Start and end offsets of the line holding `offset`. */
export function lineBounds(text: string, offset: number): { start: number; end: number } {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const newline = text.indexOf("\n", offset);
  return { start, end: newline < 0 ? text.length : newline };
}

/** Splits text into what a reader sees as characters (emoji with modifiers, letters with accents). */
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The grapheme cluster ending at `offset`. */
function charBefore(text: string, offset: number): string {
  // Clusters are short; segmenting a bounded window keeps long inputs cheap.
  const from = Math.max(0, offset - 64);
  let last = "";
  for (const { segment, index } of graphemes.segment(text.slice(from, offset))) {
    if (from + index < offset) last = segment;
  }
  return last;
}

/** The grapheme cluster starting at `offset` ("" at the end of the text). */
export function charAt(text: string, offset: number): string {
  const first = graphemes
    .segment(text.slice(offset, offset + 64))
    [Symbol.iterator]()
    .next();
  return first.done ? "" : first.value.segment;
}

/** Moves the cursor to the start of the word before it, or past the end of the word after it. */
export function moveWord(state: EditorState, direction: -1 | 1): EditorState {
  if (direction < 0)
    return { ...state, cursor: state.text.slice(0, state.cursor).replace(/\S*\s*$/, "").length };
  const rest = state.text.slice(state.cursor);
  const skipped = /^\s*\S*/.exec(rest)?.[0].length ?? 0;
  return { ...state, cursor: state.cursor + skipped };
}

/** Deletes from the cursor to the end of the word after it (Alt+D). */
export function deleteWordAfter(state: EditorState): EditorState {
  const to = moveWord(state, 1).cursor;
  return { text: state.text.slice(0, state.cursor) + state.text.slice(to), cursor: state.cursor };
}

/** The text a deletion removed, when `after` is `before` with one run cut out at after's cursor. */
export function removedText(before: EditorState, after: EditorState): string {
  return before.text.slice(after.cursor, after.cursor + before.text.length - after.text.length);
}
