import {
  type ContentPart,
  developerMessage,
  type Message,
  toolResultMessage,
  userMessage,
} from "@attractor/llm";
import type { Turn } from "../types/turn.js";

/** The result sent for a call the history has no result for (a session stopped mid-round). */
export const MISSING_TOOL_RESULT =
  "No result was recorded for this tool call: the session stopped before it finished.";

/** Each turn's messages, made once: turns are immutable, and a long session resends them all. */
const converted = new WeakMap<Turn, readonly Message[]>();

function turnMessages(turn: Turn): readonly Message[] {
  let messages = converted.get(turn);
  if (messages) return messages;
  switch (turn.kind) {
    case "user": {
      const parts: ContentPart[] = [{ kind: "text", text: turn.content }];
      for (const image of turn.images ?? []) parts.push({ kind: "image", image });
      messages = [userMessage(parts)];
      break;
    }
    case "steering":
    case "summary":
      messages = [userMessage(turn.content)];
      break;
    case "system":
      messages = [developerMessage(turn.content)];
      break;
    case "assistant":
      messages = [{ role: "assistant", content: assistantParts(turn) }];
      break;
    case "tool_results":
      messages = turn.results.map((r) =>
        toolResultMessage(r.toolCallId, r.content, r.isError, {
          name: r.toolName,
          ...(r.image !== undefined && { image: r.image }),
        }),
      );
      break;
  }
  converted.set(turn, messages);
  return messages;
}

/**
 * The messages a history turns into for the model: steering and summaries as user messages, one
 * tool message per result. A call without a recorded result (history stored while a round was
 * running) gets an error result, so providers that require one result per call accept the request.
 */
export function historyToMessages(history: readonly Turn[]): Message[] {
  const messages: Message[] = [];
  let pending: Map<string, string> | undefined;
  const flush = () => {
    if (!pending) return;
    for (const [id, name] of pending)
      messages.push(toolResultMessage(id, MISSING_TOOL_RESULT, true, { name }));
    pending = undefined;
  };
  for (const turn of history) {
    if (turn.kind === "tool_results") {
      for (const r of turn.results) pending?.delete(r.toolCallId);
    } else flush();
    for (const m of turnMessages(turn)) messages.push(m);
    if (turn.kind === "assistant" && turn.toolCalls.length > 0) {
      pending = new Map(turn.toolCalls.map((c) => [c.id, c.name]));
    }
    if (turn.kind === "tool_results") flush();
  }
  flush();
  return messages;
}

function assistantParts(turn: Extract<Turn, { kind: "assistant" }>): readonly ContentPart[] {
  if (turn.parts.length > 0) return turn.parts;
  // History written by hand (or by an older store) may carry only text and calls.
  const parts: ContentPart[] = [];
  if (turn.content !== "") parts.push({ kind: "text", text: turn.content });
  for (const toolCall of turn.toolCalls) parts.push({ kind: "tool_call", toolCall });
  return parts;
}
