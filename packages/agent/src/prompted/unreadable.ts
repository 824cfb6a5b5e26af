import type { ToolCallData } from "@attractor/llm";
import { parseToolCalls, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./parser.js";

/**
 * Whether rawArguments hold a prompted call block as the model wrote it (`<tool_call>` tags or a
 * call fence) rather than a native call's JSON arguments.
 */
export function isPromptedBlock(raw: string | undefined): raw is string {
  if (raw === undefined) return false;
  const start = raw.trimStart();
  return start.startsWith(TOOL_CALL_OPEN) || start.startsWith("```");
}

/**
 * The error result for a prompted call block that could not be read (rewriteResponse keeps the
 * block in rawArguments), or undefined for any other call. The model learns what was wrong and
 * that nothing ran, so it can send the call again.
 */
export function unreadableToolCall(call: ToolCallData): string | undefined {
  const raw = call.rawArguments;
  if (!isPromptedBlock(raw)) return undefined;
  const problem =
    parseToolCalls(raw, { parametersOf: () => [] }).issues[0]?.message ?? "the tool call could not be read";
  return [
    `Your tool call could not be read: ${problem}. Nothing ran.`,
    `Send it again as ${TOOL_CALL_OPEN}{"name": "<tool>", "arguments": {...}}${TOOL_CALL_CLOSE} with complete, valid JSON (double quotes, no comments, no trailing commas).`,
  ].join("\n");
}

/**
 * True when every call of a reply is an unreadable prompted block: the reply was meant as a
 * call, and no call in it could run. Twice in a row ends the run as an error.
 */
export function onlyUnreadableCalls(calls: readonly ToolCallData[]): boolean {
  return calls.length > 0 && calls.every((c) => unreadableToolCall(c) !== undefined);
}

/** The error a run ends with when the model's reply could not be read as a call, twice in a row. */
export const UNREADABLE_TWICE_MESSAGE =
  "The model's tool call could not be read twice in a row (it was told what was wrong after the first); the run stops here instead of taking the unreadable reply as an answer.";
