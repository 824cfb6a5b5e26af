import type { LayerInput, LayerResult, SpanEdit } from "./edit-types.js";
import { lineBreakAt, lineStart, withLineBreaks } from "./eol.js";
import { buildView, originalSpan, type ViewLevel } from "./text-view.js";

/** Start offsets of the non-overlapping occurrences of `needle` in `text`. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === "") return found;
  let at = text.indexOf(needle);
  while (at !== -1) {
    found.push(at);
    at = text.indexOf(needle, at + needle.length);
  }
  return found;
}

function fileEol(body: string): "\n" | "\r\n" {
  const lf = body.indexOf("\n");
  return lf > 0 && body[lf - 1] === "\r" ? "\r\n" : "\n";
}

function replacementAt(input: LayerInput, start: number): string {
  return withLineBreaks(input.newText, lineBreakAt(input.body, start, fileEol(input.body)));
}

/** Layer 1: old_string exactly as written (line breaks included). */
export function matchExact(input: LayerInput, oldRaw: string): LayerResult {
  const edits: SpanEdit[] = occurrences(input.body, oldRaw).map((start) => ({
    start,
    end: start + oldRaw.length,
    text: replacementAt(input, start),
  }));
  return { edits };
}

/**
 * Layers 2 and 3: old_string found in a normalised copy of the file (line breaks; then also
 * Unicode compatibility forms, typographic punctuation, odd spaces and trailing whitespace). Only
 * the matched span of the original is replaced, so the rest of the file keeps its characters.
 */
export function matchNormalised(input: LayerInput, level: ViewLevel): LayerResult {
  const view = buildView(input.body, level);
  const needle = buildView(input.oldText, level).text;
  if (needle.trim() === "") return { edits: [] };
  const edits = occurrences(view.text, needle).map((from) => {
    const span = originalSpan(view, from, from + needle.length);
    if (input.newText === "" && needle.endsWith("\n")) {
      // Deleting whole lines found after their indentation deletes the indentation too.
      const lineFrom = lineStart(input.body, span.start);
      if (input.body.slice(lineFrom, span.start).trim() === "") span.start = lineFrom;
    }
    return { ...span, text: replacementAt(input, span.start) };
  });
  return { edits };
}
