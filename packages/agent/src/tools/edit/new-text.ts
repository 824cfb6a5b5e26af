import { diffArrays } from "diff";
import { indentOf } from "./normalize.js";
import { plainPunctuation } from "./typography.js";

/**
 * One line of old_string beside the file text it matched. `oldContent` and `fileContent` are the
 * parts compared character for character (same length: only one-for-one substitutions such as a
 * curly quote for a straight one are allowed between them); `fileText` is the file's whole text
 * for that line, written back unchanged where new_string keeps the line.
 */
export interface AlignedLine {
  readonly oldContent: string;
  readonly fileContent: string;
  readonly fileText: string;
}

/** Maps the indentation of a new line the way old_string's was mapped; undefined when it cannot be. */
export type IndentMap = (indent: string) => string | undefined;

/** The text to write, or why new_string cannot be written the way old_string was matched. */
export type NewText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly problem: string };

// A line that ends like this, or a control statement, opens a block: the next, deeper line is
// indented, not aligned.
const OPENS_BLOCK = /[{([:>]$/;
const CONTROL =
  /^\s*(?:\}\s*)?(?:if|else|for|foreach|while|do|switch|case|default|elif|elsif|unless|until|try|catch|finally)\b/;

// Whether `line` goes deeper than the last non-blank line written before it without that line
// opening a block: a continuation, which tab-indented code often aligns with spaces.
// Comment and preprocessor lines: their indentation neither continues a statement nor opens a block.
const COMMENT_OR_DIRECTIVE = /^\s*(?:\/\/|\/\*|\*|#)/;

function isContinuation(written: readonly string[], line: string): boolean {
  if (line.trim() === "" || COMMENT_OR_DIRECTIVE.test(line)) return false;
  for (let i = written.length - 1; i >= 0; i--) {
    const previous = written[i] as string;
    if (previous.trim() === "" || COMMENT_OR_DIRECTIVE.test(previous)) continue;
    if (indentOf(line).length <= indentOf(previous).length) return false;
    return !OPENS_BLOCK.test(previous.trimEnd()) && !CONTROL.test(previous);
  }
  return false;
}

const identity: IndentMap = (indent) => indent;

function commonPrefix(a: string, b: string, limit: number): number {
  let i = 0;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

function commonSuffix(a: string, b: string, limit: number): number {
  let i = 0;
  while (i < limit && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return i;
}

// The removed old line a changed new line most likely replaces: the one it shares the longest
// start and end with (punctuation read plainly), earliest on a tie; none when it shares nothing.
function closestOld(line: string, free: readonly number[], oldLines: readonly string[]): number | undefined {
  const mine = plainPunctuation(line.trim());
  let best: number | undefined;
  let bestScore = 0;
  for (const j of free) {
    const theirs = plainPunctuation((oldLines[j] as string).trim());
    const limit = Math.min(mine.length, theirs.length);
    const p = commonPrefix(mine, theirs, limit);
    const score = p + commonSuffix(mine, theirs, limit - p);
    if (score > bestScore) {
      best = j;
      bestScore = score;
    }
  }
  return best;
}

/**
 * new_string as it goes into the file, given how each line of old_string matched: a line new_string
 * keeps is the file's line as it is; a changed line takes the file's characters where it agrees
 * with the old line it replaces (so a curly quote the file has stays) and the model's elsewhere;
 * indentation goes through `indentMap` (which applies the same shift old_string needed). With
 * `wholeLines` false, lines are compared whole with no indentation of their own. `blankMap`
 * converts whitespace-only lines.
 */
export function buildNewText(
  oldLines: readonly string[],
  newLines: readonly string[],
  aligned: readonly AlignedLine[],
  indentMap: IndentMap = identity,
  wholeLines = true,
  blankMap: IndentMap = identity,
  guessesContinuations = false,
): NewText {
  // A whitespace-only line says nothing about the shift between old_string and the file, so it
  // only goes through the conversion of tabs and spaces, if any.
  const blankLine = (line: string): string => blankMap(line) ?? line;
  const out: string[] = [];
  const changes = diffArrays(oldLines as string[], newLines as string[]);
  let oldAt = 0;
  let removed: number[] = [];
  const place = (line: string, pair: AlignedLine | undefined): string | undefined => {
    const indent = wholeLines ? indentOf(line) : "";
    const content = line.slice(indent.length);
    const mapped = indentMap(indent);
    if (content === "") return blankLine(line);
    if (mapped === undefined) return undefined;
    // Without a character-for-character alignment (a canonically equivalent accent, say) the
    // changed line is written as the model wrote it.
    if (pair === undefined || pair.oldContent.length !== pair.fileContent.length) return mapped + content;
    const o = pair.oldContent;
    const limit = Math.min(o.length, content.length);
    const p = commonPrefix(content, o, limit);
    const s = commonSuffix(content, o, limit - p);
    return (
      mapped +
      pair.fileContent.slice(0, p) +
      content.slice(p, content.length - s) +
      pair.fileContent.slice(o.length - s)
    );
  };
  for (const change of changes) {
    if (change.removed) {
      removed = change.value.map((_, t) => oldAt + t);
      oldAt += change.value.length;
      continue;
    }
    if (change.added) {
      const free = [...removed];
      for (const line of change.value) {
        const j = closestOld(line, free, oldLines);
        if (j !== undefined) free.splice(free.indexOf(j), 1);
        const placed = place(line, j === undefined ? undefined : aligned[j]);
        if (guessesContinuations && placed !== undefined && isContinuation(out, placed)) {
          return {
            ok: false,
            problem: `new_string's line ${JSON.stringify(line)} continues the line before it, and its spaces may be alignment rather than indentation (the file indents with tabs)`,
          };
        }
        if (placed === undefined) {
          return {
            ok: false,
            problem: `new_string's line ${JSON.stringify(line)} cannot be indented the way old_string had to be (its indentation does not contain the difference)`,
          };
        }
        out.push(placed);
      }
      removed = [];
      continue;
    }
    removed = [];
    // A line new_string keeps is the file's line, but with the trailing whitespace the model wrote:
    // trailing whitespace carries no meaning, and what the model wrote is what it asked for.
    for (const [t, line] of change.value.entries()) {
      const fileLine = (aligned[oldAt + t] as AlignedLine).fileText;
      const kept = fileLine.trimEnd();
      out.push(
        kept === "" || line.trim() === "" ? blankLine(line) : kept + line.slice(line.trimEnd().length),
      );
    }
    oldAt += change.value.length;
  }
  return { ok: true, text: out.join("\n") };
}
