import type { Request } from "@attractor/llm";
import type { Turn } from "../types/turn.js";

/** Characters per token of the usual heuristic. */
const CHARS_PER_TOKEN = 4;

const tokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** Approximate tokens of one turn as the model receives it. */
export function estimateTurnTokens(turn: Turn): number {
  switch (turn.kind) {
    case "assistant": {
      let chars = turn.content.length + (turn.reasoning?.length ?? 0);
      for (const call of turn.toolCalls)
        chars += call.name.length + (call.rawArguments?.length ?? JSON.stringify(call.arguments).length);
      return tokens(chars);
    }
    case "tool_results":
      return tokens(turn.results.reduce((n, r) => n + r.content.length + r.toolName.length + 40, 0));
    default:
      return tokens(turn.content.length);
  }
}

/** Approximate tokens of a history. */
export function estimateHistoryTokens(turns: readonly Turn[]): number {
  let total = 0;
  for (const turn of turns) total += estimateTurnTokens(turn);
  return total;
}

/** Approximate tokens a request spends besides the history: system prompt and tool definitions. */
export function requestOverheadTokens(request: Request): number {
  let chars = 0;
  for (const message of request.messages) {
    if (message.role !== "system") continue;
    for (const part of message.content) if (part.kind === "text") chars += part.text.length;
  }
  if (request.tools && request.tools.length > 0) chars += JSON.stringify(request.tools).length;
  return tokens(chars);
}
