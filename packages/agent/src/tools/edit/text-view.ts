import { normalizeUnicode } from "./normalize.js";

/**
 * A normalised copy of a text that remembers where each of its characters came from, so a match
 * found in the copy replaces exactly the matching span of the original and nothing else.
 */
export interface TextView {
  readonly text: string;
  /** For each character of `text`: the offset in the original where its source character starts. */
  readonly starts: readonly number[];
  /** For each character of `text`: the offset in the original just after its source character. */
  readonly ends: readonly number[];
  /** Length of the original text. */
  readonly sourceLength: number;
}

/** How strongly a view normalises: line breaks only, or also Unicode and trailing spaces. */
export type ViewLevel = "line-endings" | "unicode";

// Compatibility decomposition per code point, so that full-width forms, ligatures and composed or
// decomposed accents compare equal while every output character still maps to one source character.
function foldCodePoint(ch: string): string {
  const code = ch.codePointAt(0) as number;
  if (code < 0x80) return ch;
  return normalizeUnicode(ch.normalize("NFKD"));
}

/** Builds the view of `source` at a level; the same function normalises the needle. */
export function buildView(source: string, level: ViewLevel): TextView {
  const out: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  while (i < source.length) {
    const lineEnd = source.indexOf("\n", i);
    const stop = lineEnd === -1 ? source.length : lineEnd;
    // A CR that ends the line belongs to the line break, not to the line.
    const contentEnd = stop > i && source[stop - 1] === "\r" ? stop - 1 : stop;
    const lineStartInView = out.length;
    let j = i;
    while (j < contentEnd) {
      const cp = source.codePointAt(j) as number;
      const width = cp > 0xffff ? 2 : 1;
      const ch = source.slice(j, j + width);
      const folded = level === "unicode" ? foldCodePoint(ch) : ch;
      for (const unit of folded) {
        for (let k = 0; k < unit.length; k++) {
          out.push(unit[k] as string);
          starts.push(j);
          ends.push(j + width);
        }
      }
      j += width;
    }
    if (level === "unicode") {
      // Trailing whitespace does not take part in the comparison.
      let keep = out.length;
      while (keep > lineStartInView && /[ \t\f\v]/.test(out[keep - 1] as string)) keep--;
      out.length = keep;
      starts.length = keep;
      ends.length = keep;
    }
    if (lineEnd === -1) break;
    out.push("\n");
    starts.push(contentEnd);
    ends.push(lineEnd + 1);
    i = lineEnd + 1;
  }
  return { text: out.join(""), starts, ends, sourceLength: source.length };
}

/** The span of the original that the view range [from, to) came from. */
export function originalSpan(view: TextView, from: number, to: number): { start: number; end: number } {
  const start = view.starts[from] as number;
  if (to <= from) return { start, end: start };
  // A match that reaches the end of a line also covers the whitespace the view dropped there.
  const atLineEnd = to === view.text.length || view.text[to] === "\n";
  const end =
    atLineEnd && view.text[to - 1] !== "\n" ? lineContentEnd(view, to) : (view.ends[to - 1] as number);
  return { start, end };
}

function lineContentEnd(view: TextView, to: number): number {
  if (to < view.text.length) return view.starts[to] as number;
  return view.sourceLength;
}
