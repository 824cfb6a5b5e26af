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
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return undefined;
      if (stack.length === 0)
        return { json: text.slice(start, i + 1), end: i + 1, complete: true, cutMidValue: false };
    }
  }
  let repaired = text.slice(start).trimEnd();
  const cutMidValue = inString || /[-+.\deE]$|\b(t|tr|tru|f|fa|fal|fals|n|nu|nul)$/.test(repaired);
  if (escaped) repaired = repaired.slice(0, -1);
  if (inString) repaired += '"';
  // A dangling separator or key would still fail to parse; drop it before closing.
  repaired = repaired.replace(/[,:]\s*$/, "").replace(/,\s*"[^"]*"\s*$/, "");
  return { json: repaired + stack.reverse().join(""), end: text.length, complete: false, cutMidValue };
}
