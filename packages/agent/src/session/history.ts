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
  for (let i = 0; i < history.length; i++) {
    const turn = history[i] as Turn;
    for (const m of turnMessages(turn)) messages.push(m);
    if (turn.kind !== "assistant" || turn.toolCalls.length === 0) continue;
    // The results come in the next turn; calls it does not answer get an error result after it.
    const next = history[i + 1];
    const answers = next?.kind === "tool_results" ? next : undefined;
    if (answers !== undefined) {
      i++;
      for (const m of turnMessages(answers)) messages.push(m);
      if (answersAll(turn.toolCalls, answers.results)) continue;
    }
    const answered = new Set(answers?.results.map((r) => r.toolCallId));
    for (const call of turn.toolCalls) {
      if (!answered.has(call.id)) {
        messages.push(toolResultMessage(call.id, MISSING_TOOL_RESULT, true, { name: call.name }));
        answered.add(call.id);
      }
    }
  }
  return messages;
}

/** Whether the results answer every call: the usual case, checked without allocating. */
function answersAll(
  calls: readonly { readonly id: string }[],
  results: readonly { readonly toolCallId: string }[],
): boolean {
  if (results.length < calls.length) return false;
  for (let c = 0; c < calls.length; c++) {
    const id = (calls[c] as { id: string }).id;
    if (results[c]?.toolCallId === id) continue;
    if (!results.some((r) => r.toolCallId === id)) return false;
  }
  return true;
}

function assistantParts(turn: Extract<Turn, { kind: "assistant" }>): readonly ContentPart[] {
  if (turn.parts.length > 0) return turn.parts;
  // History written by hand (or by an older store) may carry only text and calls.
  const parts: ContentPart[] = [];
  if (turn.content !== "") parts.push({ kind: "text", text: turn.content });
  for (const toolCall of turn.toolCalls) parts.push({ kind: "tool_call", toolCall });
  return parts;
}
