import type { ToolCallData } from "@attractor/llm";
import type { ToolResultRecord } from "../types/turn.js";
import { runToolRound, type ToolRoundContext } from "./tool-round.js";

/** Decides before a call runs: an error message for the model when it must not run, else undefined. */
export type CallGuard = (call: ToolCallData) => string | undefined;

/**
 * Runs a tool round in which the guard may refuse calls: a refused call does not run and gets
 * its message as an error result, with the usual TOOL_CALL_START / TOOL_CALL_END events in its
 * place among the others; the calls between refusals run as normal rounds. Results come back
 * in call order.
 */
export async function runGuardedToolRound(
  calls: readonly ToolCallData[],
  ctx: ToolRoundContext & { readonly guard: CallGuard },
): Promise<ToolResultRecord[]> {
  const refusals = calls.map((call) => ctx.guard(call));
  if (refusals.every((r) => r === undefined)) return runToolRound(calls, ctx);
  const results: ToolResultRecord[] = [];
  let pending: ToolCallData[] = [];
  const flush = async () => {
    if (pending.length > 0) results.push(...(await runToolRound(pending, ctx)));
    pending = [];
  };
  for (const [i, call] of calls.entries()) {
    const message = refusals[i];
    if (message === undefined) {
      pending.push(call);
      continue;
    }
    await flush();
    ctx.onStart({ toolName: call.name, callId: call.id, arguments: call.arguments });
    ctx.onEnd({
      toolName: call.name,
      callId: call.id,
      output: message,
      isError: true,
      errorCode: "refused",
      truncated: false,
      durationMs: 0,
    });
    results.push({ toolCallId: call.id, toolName: call.name, content: message, isError: true });
  }
  await flush();
  return results;
}
