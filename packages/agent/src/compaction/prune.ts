import type { ToolResultRecord, Turn } from "../types/turn.js";

/** Tool rounds at the end of the history whose outputs pruning never touches. */
export const KEEP_RECENT_TOOL_ROUNDS = 3;

/** Outputs shorter than this stay: the marker would save nothing. */
const MIN_PRUNED_CHARS = 400;

/** What a pruned output becomes. */
export function prunedOutputMarker(toolName: string, chars: number): string {
  return `[Output of this ${toolName} call (${chars} characters) was removed to save context; call the tool again if you need it.]`;
}

const PRUNED_PREFIX = "[Output of this ";

/** The history with old tool outputs pruned, and how many were. */
export interface PruneResult {
  readonly turns: readonly Turn[];
  readonly pruned: number;
}

/**
 * Replaces the outputs of tool calls older than the last `keepRecentRounds` rounds with a short
 * marker, keeping every call and result in place (providers pair them by id). The newest outputs
 * stay whole because the model is most likely still working with them.
 */
export function pruneToolOutputs(
  turns: readonly Turn[],
  keepRecentRounds: number = KEEP_RECENT_TOOL_ROUNDS,
): PruneResult {
  let rounds = 0;
  let pruned = 0;
  const out = [...turns];
  for (let i = out.length - 1; i >= 0; i--) {
    const turn = out[i]!;
    if (turn.kind !== "tool_results") continue;
    rounds++;
    if (rounds <= keepRecentRounds) continue;
    let changed = false;
    const results = turn.results.map((r): ToolResultRecord => {
      const small = r.content.length < MIN_PRUNED_CHARS || r.content.startsWith(PRUNED_PREFIX);
      if (small && r.image === undefined && r.document === undefined) return r;
      changed = true;
      pruned++;
      return {
        toolCallId: r.toolCallId,
        toolName: r.toolName,
        content: prunedOutputMarker(r.toolName, r.content.length),
        isError: r.isError,
      };
    });
    if (changed) out[i] = { ...turn, results };
  }
  return { turns: pruned > 0 ? out : turns, pruned };
}
