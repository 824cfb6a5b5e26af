import type { ToolCallData } from "@attractor/llm";
import { parseToolCalls, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./parser.js";

/**
 * The error result for a `<tool_call>` block that could not be read (rewriteResponse keeps the
 * block in rawArguments), or undefined for any other call. The model learns what was wrong and
 * that nothing ran, so it can send the call again.
 */
export function unreadableToolCall(call: ToolCallData): string | undefined {
  const raw = call.rawArguments;
  if (raw === undefined || !raw.trimStart().startsWith(TOOL_CALL_OPEN)) return undefined;
  const problem = parseToolCalls(raw).issues[0]?.message ?? "the tool call could not be read";
  return [
    `Your tool call could not be read: ${problem}. Nothing ran.`,
    `Send it again as ${TOOL_CALL_OPEN}{"name": "<tool>", "arguments": {...}}${TOOL_CALL_CLOSE} with complete JSON.`,
  ].join("\n");
}
