import type { TodoItem, ToolResultRecord, ToolResultsTurn, Turn } from "@attractor/agent";
import { parseTodos } from "@attractor/agent/internals";

/** What was read back from a transcript, made safe to continue from. */
export interface RestoredHistory {
  readonly turns: readonly Turn[];
  /** Problems found and repaired, for the user. */
  readonly warnings: readonly string[];
  /** For each of `turns`, the index in the input it came from; undefined for a repair added. */
  readonly origins: readonly (number | undefined)[];
}

const INTERRUPTED =
  "The tool call was interrupted before it finished (the previous run stopped). Its effects, if any, are unknown: check the state before relying on it.";

/**
 * Checks stored turns and repairs what would break the next model call: malformed turns are
 * dropped, and tool calls left without results (a run killed mid-round) get error results, since
 * providers reject a call that has no result.
 */
export function restoreHistory(stored: readonly unknown[]): RestoredHistory {
  const warnings: string[] = [];
  const turns: Turn[] = [];
  const from: number[] = [];
  let dropped = 0;
  const unknownKinds = new Set<string>();
  stored.forEach((raw, index) => {
    const kind = (raw as { kind?: unknown } | null)?.kind;
    if (typeof kind === "string" && !KNOWN_KINDS.has(kind)) {
      // A kind from a later version (or a foreign tool): skipped like a corrupt line, since a
      // session handed a turn it does not know would fail on every request.
      unknownKinds.add(kind);
      return;
    }
    if (!isTurn(raw)) {
      dropped++;
      return;
    }
    turns.push(raw);
    from.push(index);
  });
  if (dropped > 0)
    warnings.push(`${dropped} malformed turn${dropped === 1 ? "" : "s"} in the transcript skipped`);
  for (const kind of unknownKinds)
    warnings.push(`turns of unknown kind ${JSON.stringify(kind)} in the transcript skipped`);
  const repaired: Turn[] = [];
  const origins: (number | undefined)[] = [];
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i] as Turn;
    repaired.push(turn);
    origins.push(from[i]);
    if (turn.kind !== "assistant" || turn.toolCalls.length === 0) continue;
    const next = turns[i + 1];
    const answered = new Set(next?.kind === "tool_results" ? next.results.map((r) => r.toolCallId) : []);
    const missing = turn.toolCalls.filter((c) => !answered.has(c.id));
    if (missing.length === 0) continue;
    const results: ToolResultRecord[] = missing.map((c) => ({
      toolCallId: c.id,
      toolName: c.name,
      content: INTERRUPTED,
      isError: true,
    }));
    if (next?.kind === "tool_results") {
      const merged: ToolResultsTurn = { ...next, results: [...next.results, ...results] };
      repaired.push(merged);
      origins.push(from[i + 1]);
      i++;
    } else {
      repaired.push({ kind: "tool_results", results, timestamp: turn.timestamp });
      origins.push(undefined);
    }
    warnings.push(
      `${missing.length} tool call${missing.length === 1 ? " was" : "s were"} interrupted by the end of the previous run`,
    );
  }
  return { turns: repaired, warnings, origins };
}

/** The todo list as the last successful `todo` call in the history left it. */
export function todosFromHistory(history: readonly Turn[]): TodoItem[] {
  let todos: TodoItem[] = [];
  for (let i = 0; i < history.length; i++) {
    const turn = history[i] as Turn;
    if (turn.kind !== "assistant") continue;
    const next = history[i + 1];
    for (const call of turn.toolCalls) {
      if (call.name !== "todo") continue;
      const result =
        next?.kind === "tool_results" ? next.results.find((r) => r.toolCallId === call.id) : undefined;
      if (!result || result.isError) continue;
      const parsed = parseTodos((call.arguments as { todos?: unknown }).todos);
      if ("todos" in parsed) todos = parsed.todos;
    }
  }
  return todos;
}

function isTurn(value: unknown): value is Turn {
  if (!value || typeof value !== "object") return false;
  const t = value as Record<string, unknown>;
  if (typeof t.kind !== "string") return false;
  switch (t.kind) {
    case "user":
    case "steering":
    case "system":
      return typeof t.content === "string";
    case "assistant":
      return (
        typeof t.content === "string" &&
        Array.isArray(t.toolCalls) &&
        t.toolCalls.every(
          (c) => c && typeof c === "object" && typeof (c as { id?: unknown }).id === "string",
        ) &&
        Array.isArray(t.parts) &&
        typeof t.usage === "object" &&
        t.usage !== null
      );
    case "tool_results":
      return Array.isArray(t.results);
    case "summary":
      return typeof t.content === "string";
    default:
      return false;
  }
}

/** The turn kinds this version's sessions understand. */
const KNOWN_KINDS: ReadonlySet<string> = new Set<Turn["kind"]>([
  "user",
  "assistant",
  "tool_results",
  "system",
  "steering",
  "summary",
]);
