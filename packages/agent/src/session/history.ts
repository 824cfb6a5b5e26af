import {
  type ContentPart,
  developerMessage,
  type Message,
  toolResultMessage,
  userMessage,
} from "@attractor/llm";
import type { Turn } from "../types/turn.js";

/** The messages a history turns into for the model: steering as user messages, one tool message per result. */
export function historyToMessages(history: readonly Turn[]): Message[] {
  const messages: Message[] = [];
  for (const turn of history) {
    switch (turn.kind) {
      case "user": {
        const parts: ContentPart[] = [{ kind: "text", text: turn.content }];
        for (const image of turn.images ?? []) parts.push({ kind: "image", image });
        messages.push(userMessage(parts));
        break;
      }
      case "steering":
        messages.push(userMessage(turn.content));
        break;
      case "system":
        messages.push(developerMessage(turn.content));
        break;
      case "assistant":
        messages.push({ role: "assistant", content: assistantParts(turn) });
        break;
      case "tool_results":
        for (const r of turn.results) {
          messages.push(
            toolResultMessage(r.toolCallId, r.content, r.isError, {
              name: r.toolName,
              ...(r.image !== undefined && { image: r.image }),
            }),
          );
        }
        break;
    }
  }
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
