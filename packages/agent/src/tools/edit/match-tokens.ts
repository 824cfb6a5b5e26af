import type { LayerInput, LayerResult, SpanEdit } from "./edit-types.js";
import { lineBreakAt, lineStart, withLineBreaks } from "./eol.js";
import { indentOf } from "./normalize.js";

// Punctuation that models space differently from the file ("foo( a )" for "foo(a)").
const DELIMITERS = /([()[\]{}<>=:,;])/;
// Beyond this, a pattern costs more than the layer can save.
const MAX_TOKENS = 2000;

/** old_string cut into tokens: whitespace-separated words, with delimiters as tokens of their own. */
export function tokensOf(text: string): string[] {
  return text
    .split(/\s+/)
    .flatMap((word) => word.split(DELIMITERS))
    .filter((t) => t !== "");
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

// New lines placed where the match starts: the first line after the file's own indentation, the
// others moved from new_string's first-line indentation to the file's.
function placed(newText: string, indentation: string | undefined): string {
  if (indentation === undefined) return newText;
  const lines = newText.split("\n");
  const ref = indentOf(lines[0] ?? "");
  return lines
    .map((line, i) => {
      if (i === 0) return line.trimStart();
      if (line.trim() === "") return line;
      return line.startsWith(ref) ? indentation + line.slice(ref.length) : indentation + line.trimStart();
    })
    .join("\n");
}

/**
 * Layer 5: the tokens of old_string in order with any whitespace (or none) between them, which
 * absorbs spacing and line-wrapping differences inside lines.
 */
export function matchTokens(input: LayerInput): LayerResult {
  const tokens = tokensOf(input.oldText);
  if (tokens.length < 2 || tokens.length > MAX_TOKENS) return { edits: [] };
  const pattern = new RegExp(tokens.map(escapeRegex).join("\\s*"), "g");
  let newText = input.newText;
  if (input.oldText.endsWith("\n") && newText.endsWith("\n")) newText = newText.slice(0, -1);
  const edits: SpanEdit[] = [];
  for (const m of input.body.matchAll(pattern)) {
    let start = m.index;
    let end = start + m[0].length;
    const from = lineStart(input.body, start);
    const prefix = input.body.slice(from, start);
    const atIndent = prefix.trim() === "";
    let text = placed(newText, atIndent ? prefix : undefined);
    if (text === "" && atIndent) {
      // Removing everything on the line removes the line.
      const lf = input.body.indexOf("\n", end);
      const rest = input.body.slice(end, lf === -1 ? input.body.length : lf);
      if (rest.trim() === "") {
        start = from;
        end = lf === -1 ? input.body.length : lf + 1;
      }
    }
    text = withLineBreaks(text, lineBreakAt(input.body, start, "\n"));
    edits.push({ start, end, text });
  }
  return { edits };
}
