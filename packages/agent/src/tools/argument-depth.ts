import type { ContentPart, ToolCallData } from "@attractor/llm";

/** How deeply tool arguments may nest; real tool schemas stay far below it. */
export const MAX_ARGUMENT_DEPTH = 100;

/** The error a call with arguments nested too deeply gets. */
export const ARGUMENT_DEPTH_MESSAGE = `arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep; send flat arguments as the tool's schema describes`;

// Stands in for the arguments of a call that was cut (they are not kept: every recursive reader —
// JSON.stringify included — would overflow the stack on them).
const CUT_ARGUMENTS = `{"error":"${ARGUMENT_DEPTH_MESSAGE}"}`;

/** True when JSON-like data nests deeper than `limit` objects/arrays (checked without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** True for a call whose arguments were cut by boundArgumentDepth. */
export function argumentsWereCut(call: Pick<ToolCallData, "rawArguments">): boolean {
  return call.rawArguments === CUT_ARGUMENTS;
}

/**
 * A response's tool calls and parts with every call nested deeper than MAX_ARGUMENT_DEPTH cut to
 * empty arguments, so the history, the transcript and the next request stay serialisable; the
 * dispatcher answers such a call with ARGUMENT_DEPTH_MESSAGE.
 */
export function boundArgumentDepth(
  calls: readonly ToolCallData[],
  parts: readonly ContentPart[],
): { calls: readonly ToolCallData[]; parts: readonly ContentPart[] } {
  const cut = (call: ToolCallData): ToolCallData =>
    nestsDeeperThan(call.arguments, MAX_ARGUMENT_DEPTH) ||
    (call.rawArguments !== undefined && rawNestsTooDeep(call.rawArguments))
      ? { ...call, arguments: {}, rawArguments: CUT_ARGUMENTS }
      : call;
  const cutCalls = calls.map(cut);
  if (cutCalls.every((c, i) => c === calls[i])) return { calls, parts };
  return {
    calls: cutCalls,
    parts: parts.map((p) => (p.kind === "tool_call" ? { ...p, toolCall: cut(p.toolCall) } : p)),
  };
}

/** Bracket depth of a JSON text outside strings: a cheap bound that needs no parse. */
function rawNestsTooDeep(raw: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (++depth > MAX_ARGUMENT_DEPTH) return true;
    } else if (c === "}" || c === "]") depth--;
  }
  return false;
}
