import type { WireBlock, WireBody, WireMessage } from "./wire.js";

/** The API rejects a request with more cache breakpoints than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

const hasMarker = (block: WireBlock | undefined): boolean => block?.cache_control !== undefined;

/** Marked blocks in a list; provider options may replace `system` or `tools` with other shapes (a plain string). */
function marked(list: unknown): number {
  if (!Array.isArray(list)) return 0;
  let n = 0;
  for (const b of list) if (typeof b === "object" && b !== null && hasMarker(b as WireBlock)) n++;
  return n;
}

/** Blocks the API does not let carry cache_control. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

/** Whether markLast would mark this list's last block. */
function markable(list: unknown, budget: { left: number }): boolean {
  if (budget.left <= 0 || !Array.isArray(list) || list.length === 0) return false;
  const block = list[list.length - 1] as WireBlock | undefined;
  return (
    typeof block === "object" && block !== null && !hasMarker(block) && !UNMARKABLE.has(String(block.type))
  );
}

/**
 * Marks the last block of `list`, unless the budget is spent. Copy on write: blocks are shared
 * with the translation cache of earlier requests, so the marked block is a new object.
 */
function markLast(list: unknown, budget: { left: number }): void {
  if (!markable(list, budget)) return;
  const blocks = list as WireBlock[];
  blocks[blocks.length - 1] = { ...blocks[blocks.length - 1], cache_control: { type: "ephemeral" } };
  budget.left--;
}

/** Counts the cache_control markers already in a body. */
export function countCacheBreakpoints(body: WireBody): number {
  let n = marked(body.tools) + marked(body.system);
  for (const m of body.messages) n += marked(m.content);
  return n;
}

/**
 * Places automatic prompt-cache breakpoints (`existing`: the markers the body holds already,
 * counted when not given), in place (a marked block is replaced by a marked
 * copy, never changed), counting markers already present
 * (from provider options) against the limit of four. The prefix order is tools, system,
 * messages, so the heuristic marks, while fewer than four markers exist:
 *  1. the last tool definition (the tool list rarely changes within a session);
 *  2. the last system block (the system prompt is stable too);
 *  3. the last block of the latest user turn: this request writes the cache up to here;
 *  4. the last block of the user turn before it: the previous request wrote up to there, so
 *     this request reads the whole earlier conversation from the cache.
 * In an agent loop every tool round is a new user turn, so turn N always reads what turn N-1
 * wrote and writes what turn N+1 will read.
 */
export function applyCacheBreakpoints(body: WireBody, existing = countCacheBreakpoints(body)): void {
  const budget = { left: MAX_CACHE_BREAKPOINTS - existing };
  markLast(body.tools, budget);
  markLast(body.system, budget);
  let seen = 0;
  for (let i = body.messages.length - 1; i >= 0 && seen < 2; i--) {
    const message = body.messages[i] as WireMessage;
    if (message.role !== "user") continue;
    seen++;
    if (!markable(message.content, budget)) continue;
    // Messages are shared with earlier requests too: the marked one is a copy.
    const copy: WireMessage = { ...message, content: [...message.content] };
    markLast(copy.content, budget);
    body.messages[i] = copy;
  }
}
