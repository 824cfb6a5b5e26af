import { normalizeUnicode } from "./normalize.js";

/** One line of a view: where it starts in the view and in the original, and how it maps. */
interface ViewLine {
  readonly viewStart: number;
  /** View offset just after the line's content (where its "\n" is, if it has one). */
  readonly viewEnd: number;
  readonly srcStart: number;
  /** Where the line break starts in the original (after any trailing whitespace). */
  readonly srcBreak: number;
  /** Where the next line starts in the original (the source length for the last line). */
  readonly srcNext: number;
  /** Per view character of a line that changed: source offsets; absent when the line is a copy. */
  readonly starts?: readonly number[];
  readonly ends?: readonly number[];
}

/**
 * A normalised copy of a text that remembers where each of its characters came from, so a match
 * found in the copy replaces exactly the matching span of the original and nothing else.
 */
export interface TextView {
  readonly text: string;
  /** Length of the original text. */
  readonly sourceLength: number;
  readonly lines: readonly ViewLine[];
}

/** How strongly a view normalises: line breaks only, or also Unicode and trailing spaces. */
export type ViewLevel = "line-endings" | "unicode";

// Compatibility decomposition per code point, so that full-width forms, ligatures and composed or
// decomposed accents compare equal while every output character still maps to one source character.
function foldCodePoint(ch: string): string {
  return normalizeUnicode(ch.normalize("NFKD"));
}

const ASCII = /^[\x20-\x7e\t]*$/;

/** Builds the view of `source` at a level; the same function normalises the needle. */
export function buildView(source: string, level: ViewLevel): TextView {
  const pieces: string[] = [];
  const lines: ViewLine[] = [];
  let viewLength = 0;
  let i = 0;
  while (i <= source.length) {
    const lineEnd = source.indexOf("\n", i);
    const stop = lineEnd === -1 ? source.length : lineEnd;
    // A CR that ends the line belongs to the line break, not to the line.
    const contentEnd = stop > i && source[stop - 1] === "\r" ? stop - 1 : stop;
    const raw = source.slice(i, contentEnd);
    if (level === "line-endings" || ASCII.test(raw)) {
      // Most lines: the view is a copy (without trailing whitespace at the unicode level).
      const kept = level === "unicode" ? raw.replace(/[ \t]+$/, "") : raw;
      lines.push({
        viewStart: viewLength,
        viewEnd: viewLength + kept.length,
        srcStart: i,
        srcBreak: contentEnd,
        srcNext: lineEnd === -1 ? source.length : lineEnd + 1,
      });
      pieces.push(kept);
      viewLength += kept.length;
    } else {
      const out: string[] = [];
      const starts: number[] = [];
      const ends: number[] = [];
      let j = i;
      while (j < contentEnd) {
        const width = (source.codePointAt(j) as number) > 0xffff ? 2 : 1;
        const ch = source.slice(j, j + width);
        const folded = ch.charCodeAt(0) < 0x80 ? ch : foldCodePoint(ch);
        for (let k = 0; k < folded.length; k++) {
          out.push(folded[k] as string);
          starts.push(j);
          ends.push(j + width);
        }
        j += width;
      }
      // Trailing whitespace does not take part in the comparison.
      let keep = out.length;
      while (keep > 0 && /[ \t\f\v]/.test(out[keep - 1] as string)) keep--;
      out.length = keep;
      starts.length = keep;
      ends.length = keep;
      const text = out.join("");
      lines.push({
        viewStart: viewLength,
        viewEnd: viewLength + text.length,
        srcStart: i,
        srcBreak: contentEnd,
        srcNext: lineEnd === -1 ? source.length : lineEnd + 1,
        starts,
        ends,
      });
      pieces.push(text);
      viewLength += text.length;
    }
    if (lineEnd === -1) break;
    pieces.push("\n");
    viewLength += 1;
    i = lineEnd + 1;
  }
  return { text: pieces.join(""), sourceLength: source.length, lines };
}

// The index of the line holding view offset `at` (the "\n" after a line belongs to that line).
function lineAt(view: TextView, at: number): ViewLine {
  let lo = 0;
  let hi = view.lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((view.lines[mid] as ViewLine).viewStart <= at) lo = mid;
    else hi = mid - 1;
  }
  return view.lines[lo] as ViewLine;
}

// The source offset where view character `at` starts; for a line's "\n", where its break starts.
function sourceStart(view: TextView, at: number): number {
  if (at >= view.text.length) return view.sourceLength;
  const line = lineAt(view, at);
  if (at >= line.viewEnd) return line.srcBreak;
  const k = at - line.viewStart;
  return line.starts === undefined ? line.srcStart + k : (line.starts[k] as number);
}

/** The span of the original that the view range [from, to) came from. */
export function originalSpan(view: TextView, from: number, to: number): { start: number; end: number } {
  const start = sourceStart(view, from);
  if (to <= from) return { start, end: start };
  const line = lineAt(view, to - 1);
  // The match ends with a line break: it covers the whole break.
  if (to - 1 >= line.viewEnd) return { start, end: line.srcNext };
  // A match that reaches the end of a line also covers the whitespace the view dropped there.
  if (to === line.viewEnd) return { start, end: line.srcBreak };
  const k = to - 1 - line.viewStart;
  return { start, end: line.ends === undefined ? line.srcStart + k + 1 : (line.ends[k] as number) };
}
