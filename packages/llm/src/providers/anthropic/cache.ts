import type { WireBlock, WireBody } from "./wire.js";

/** The API rejects a request with more cache breakpoints than this. */
export const MAX_CACHE_BREAKPOINTS = 4;

const hasMarker = (block: WireBlock | undefined): boolean => block?.cache_control !== undefined;

/** Provider options may replace `system` or `tools` with other shapes (a plain string system prompt). */
const blocks = (value: unknown): WireBlock[] =>
  Array.isArray(value) ? value.filter((b): b is WireBlock => typeof b === "object" && b !== null) : [];

/** Blocks the API does not let carry cache_control. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

function mark(block: WireBlock | undefined, budget: { left: number }): void {
  if (block === undefined || budget.left <= 0 || hasMarker(block) || UNMARKABLE.has(String(block.type))) {
    return;
  }
  block.cache_control = { type: "ephemeral" };
  budget.left--;
}

/** Counts the cache_control markers already in a body. */
export function countCacheBreakpoints(body: WireBody): number {
  let n = 0;
  for (const b of blocks(body.tools)) if (hasMarker(b)) n++;
  for (const b of blocks(body.system)) if (hasMarker(b)) n++;
  for (const m of body.messages) for (const b of blocks(m.content)) if (hasMarker(b)) n++;
  return n;
}

/**
 * Places automatic prompt-cache breakpoints, in place, counting markers already present
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
export function applyCacheBreakpoints(body: WireBody): void {
  const budget = { left: MAX_CACHE_BREAKPOINTS - countCacheBreakpoints(body) };
  mark(blocks(body.tools).at(-1), budget);
  mark(blocks(body.system).at(-1), budget);
  const userTurns = body.messages.filter((m) => m.role === "user");
  mark(blocks(userTurns.at(-1)?.content).at(-1), budget);
  mark(blocks(userTurns.at(-2)?.content).at(-1), budget);
}
