import { jsonrepair } from "jsonrepair";

/** Result of scanning for one JSON object at the start of a text. */
export interface BalancedJson {
  /** The object text, repaired with closing quotes/brackets when the input was cut off. */
  readonly json: string;
  /** Characters consumed from the input (up to and including the closing brace when complete). */
  readonly end: number;
  readonly complete: boolean;
  /** Cut off inside a string or number: a value is truncated, so the repaired JSON must not be trusted. */
  readonly cutMidValue: boolean;
}

/**
 * Extracts the JSON object that starts at `text[start]` (which must be "{") by counting braces
 * outside strings, so nested objects and braces inside strings do not end it early. When the text
 * ends first, the open string and brackets are closed in order, which repairs a call that was cut
 * off mid-JSON.
 */
export function extractBalancedJson(text: string, start: number): BalancedJson | undefined {
  if (text[start] !== "{") return undefined;
  const stack: string[] = [];
  // The quote that opened the current string: '"', or "'" for the single-quoted strings models write.
  let quote: string | undefined;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "/" && text[i + 1] === "/") {
      // A comment: its apostrophes and braces are not JSON.
      const eol = text.indexOf("\n", i);
      i = eol === -1 ? text.length : eol;
    } else if (ch === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close === -1 ? text.length : close + 1;
    } else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return undefined;
      if (stack.length === 0)
        return { json: text.slice(start, i + 1), end: i + 1, complete: true, cutMidValue: false };
    }
  }
  const inString = quote !== undefined;
  let repaired = text.slice(start).trimEnd();
  const cutMidValue = inString || /[-+.\deE]$|\b(t|tr|tru|f|fa|fal|fals|n|nu|nul)$/.test(repaired);
  if (escaped) repaired = repaired.slice(0, -1);
  if (inString) repaired += quote;
  // A dangling separator or key would still fail to parse; drop it before closing.
  repaired = repaired
    .replace(/[,:]\s*$/, "")
    .replace(/([,{])\s*"[^"]*"\s*$/, (_m, before: string) => (before === "{" ? "{" : ""));
  return { json: repaired + stack.reverse().join(""), end: text.length, complete: false, cutMidValue };
}

/** A value parsed from JSON a model wrote, and whether jsonrepair had to fix it first. */
export type LooseJson =
  | { readonly ok: true; readonly value: unknown; readonly repaired: boolean }
  | { readonly ok: false; readonly message: string };

/**
 * Parses JSON as models write it: strict JSON first, then (unless `repair` is false) through
 * jsonrepair, which fixes trailing commas, single quotes, Python True/False/None, raw newlines in
 * strings, unquoted keys, comments.
 */
export function parseLooseJson(text: string, repair = true): LooseJson {
  try {
    return { ok: true, value: JSON.parse(text), repaired: false };
  } catch (strictError) {
    if (!repair) return { ok: false, message: (strictError as Error).message };
    try {
      return { ok: true, value: JSON.parse(jsonrepair(text)), repaired: true };
    } catch {
      return { ok: false, message: (strictError as Error).message };
    }
  }
}
