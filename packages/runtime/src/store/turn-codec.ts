import type { Turn } from "@attractor/agent";

// How an assistant turn is stored: each tool call's arguments once. In memory a call's
// arguments sit in `toolCalls` and again in `parts`, each as parsed data and as the raw text the
// model sent, so a 5 MB write_file would take 20 MB of transcript.

type Json = Record<string, unknown>;

/** The stored form of a turn: an assistant turn's tool calls written once. Other turns as they are. */
export function packTurn(turn: Turn): unknown {
  if (turn.kind !== "assistant" || turn.toolCalls.length === 0) return turn;
  const calls = turn.toolCalls.map((call) =>
    call.rawArguments !== undefined && rawMatches(call.rawArguments, call.arguments)
      ? withoutRaw(call)
      : call,
  );
  const parts = turn.parts.map((part) => {
    if (part.kind !== "tool_call") return part;
    const same = turn.toolCalls.find((c) => c.id === part.toolCall.id);
    return same !== undefined && sameCall(same, part.toolCall)
      ? { kind: "tool_call", toolCallId: part.toolCall.id }
      : part;
  });
  return { ...turn, toolCalls: calls, parts };
}

/** The turn packTurn stored, whole again; data in any other shape is returned as it is. */
export function unpackTurn(stored: unknown): unknown {
  if (!isObject(stored) || stored.kind !== "assistant") return stored;
  const calls = stored.toolCalls;
  const parts = stored.parts;
  if (!Array.isArray(calls) || !Array.isArray(parts)) return stored;
  const byId = new Map<unknown, Json>(calls.filter(isObject).map((c) => [c.id, c]));
  let changed = false;
  const whole = parts.map((part) => {
    if (!isObject(part) || part.kind !== "tool_call" || part.toolCall !== undefined) return part;
    const call = byId.get(part.toolCallId);
    if (call === undefined) return part;
    changed = true;
    return { kind: "tool_call", toolCall: call };
  });
  return changed ? { ...stored, parts: whole } : stored;
}

function withoutRaw<T extends { rawArguments?: string }>(call: T): Omit<T, "rawArguments"> {
  const { rawArguments: _raw, ...rest } = call;
  return rest;
}

/** True when the raw text says nothing the parsed arguments do not (it parses to the same data). */
function rawMatches(raw: string, args: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(raw)) === JSON.stringify(args);
  } catch {
    return false;
  }
}

function sameCall(a: object, b: object): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
