import { type ContentPart, type Message, userMessage } from "@attractor/llm";
import { historyToMessages } from "../history/messages.js";
import type { AssistantTurn, ToolResultsTurn, Turn } from "../types/turn.js";
import { promptedToolResult } from "./instructions.js";
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./parser.js";
import { isPromptedBlock } from "./unreadable.js";

/** A call as the model should see it in its own earlier answer: the block it wrote, or a canonical one. */
function callMarkup(call: { name: string; arguments: unknown; rawArguments?: string }): string {
  if (isPromptedBlock(call.rawArguments)) return call.rawArguments;
  return `${TOOL_CALL_OPEN}${JSON.stringify({ name: call.name, arguments: call.arguments })}${TOOL_CALL_CLOSE}`;
}

function assistantMessage(turn: AssistantTurn): Message {
  const source: readonly ContentPart[] =
    turn.parts.length > 0
      ? turn.parts
      : [
          ...(turn.content !== "" ? [{ kind: "text", text: turn.content } as const] : []),
          ...turn.toolCalls.map((toolCall) => ({ kind: "tool_call", toolCall }) as const),
        ];
  const parts: ContentPart[] = [];
  const text: string[] = [];
  for (const part of source) {
    if (part.kind === "text") text.push(part.text);
    else if (part.kind === "tool_call") text.push(callMarkup(part.toolCall));
    else parts.push(part);
  }
  if (text.length > 0) parts.push({ kind: "text", text: text.join("\n") });
  return { role: "assistant", content: parts };
}

function resultsMessage(turn: ToolResultsTurn): Message {
  const parts: ContentPart[] = [
    {
      kind: "text",
      text: turn.results.map((r) => promptedToolResult(r.toolName, r.content, r.isError)).join("\n\n"),
    },
  ];
  for (const r of turn.results) if (r.image !== undefined) parts.push({ kind: "image", image: r.image });
  return userMessage(parts);
}

/**
 * The messages for a model in prompted mode: its tool calls as `<tool_call>` text in its own
 * answers, each round's results as one user message naming every tool, no tool-role messages.
 * Works on any history, including turns recorded with native calls.
 */
export function promptedHistoryToMessages(history: readonly Turn[]): Message[] {
  const messages: Message[] = [];
  for (const turn of history) {
    if (turn.kind === "assistant") messages.push(assistantMessage(turn));
    else if (turn.kind === "tool_results") messages.push(resultsMessage(turn));
    else messages.push(...historyToMessages([turn]));
  }
  return messages;
}
