import { extractBalancedJson } from "./json-repair.js";

/** Code fences whose content may be a tool call written without `<tool_call>` tags. */
export const CALL_FENCES = ["```tool_call", "```json", "```JSON"] as const;
/** A fence that is always meant as a tool call, readable or not. */
export const TOOL_CALL_FENCE = "```tool_call";
export const FENCE_CLOSE = "```";

// A closing fence on a line of its own.
const LINE_FENCE = /\n[ \t]*```(?=[ \t]*(?:\n|$))/;

/**
 * Where the closing fence starts in `body` (the text after an opening call fence), or undefined
 * while it cannot be known yet. A JSON object is scanned string-aware, so "```" inside one of its
 * strings does not end the block; otherwise the first fence on a line of its own does.
 */
export function fenceCloseIn(body: string): number | undefined {
  const first = body.search(/\S/);
  if (first !== -1 && body[first] === "{") {
    const json = extractBalancedJson(body, first);
    if (json?.complete) {
      const close = body.indexOf(FENCE_CLOSE, json.end);
      if (close === -1) return undefined;
      if (body.slice(json.end, close).trim() === "") return close;
    }
  }
  const m = LINE_FENCE.exec(body);
  return m === null ? undefined : m.index + m[0].length - FENCE_CLOSE.length;
}

/** A fenced block in a text: where it is, what the fence opened with, and its content. */
export interface FencedBlock {
  readonly start: number;
  readonly end: number;
  readonly open: string;
  readonly inner: string;
  readonly closed: boolean;
}

/** Every call-fence block of a text, in order; an unclosed one runs to the end of the text. */
export function findFencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let from = 0;
  for (;;) {
    let next: { at: number; open: string } | undefined;
    for (const open of CALL_FENCES) {
      const at = text.indexOf(open, from);
      if (at !== -1 && (next === undefined || at < next.at)) next = { at, open };
    }
    if (next === undefined) return blocks;
    const bodyStart = next.at + next.open.length;
    const body = text.slice(bodyStart);
    const close = fenceCloseIn(body);
    if (close === undefined) {
      blocks.push({ start: next.at, end: text.length, open: next.open, inner: body, closed: false });
      return blocks;
    }
    const end = bodyStart + close + FENCE_CLOSE.length;
    blocks.push({ start: next.at, end, open: next.open, inner: body.slice(0, close), closed: true });
    from = end;
  }
}
