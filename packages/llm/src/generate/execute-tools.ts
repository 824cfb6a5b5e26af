import type { ToolCallData, ToolResultData } from "../types/index.js";
import { schemaValidator, type Tool, type ToolContext, validationErrors } from "./tool.js";

const errorResult = (call: ToolCallData, content: string): ToolResultData => ({
  toolCallId: call.id,
  name: call.name,
  content,
  isError: true,
});

function toContent(value: unknown): ToolResultData["content"] {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value;
  if (typeof value === "object") return value as Record<string, unknown>;
  return String(value);
}

/** Arguments that arrived as text but did not parse as a JSON object; undefined when they are fine. */
function unparsedArguments(call: ToolCallData): string | undefined {
  const raw = call.rawArguments;
  if (raw === undefined || raw.trim() === "") return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? undefined
      : "not a JSON object";
  } catch (err) {
    return `not valid JSON (${(err as Error).message})`;
  }
}

/** Runs one call: unknown tool, bad arguments and handler failures all become is_error results. */
export async function executeToolCall(
  call: ToolCallData,
  tools: readonly Tool[],
  context: Omit<ToolContext, "toolCallId">,
): Promise<ToolResultData> {
  const found = tools.find((t) => t.name === call.name);
  if (found?.execute === undefined) return errorResult(call, `Unknown tool: ${call.name}`);
  const unparsed = unparsedArguments(call);
  if (unparsed !== undefined)
    return errorResult(call, `Invalid arguments for tool ${call.name}: ${unparsed}`);
  let validate: ReturnType<typeof schemaValidator>;
  try {
    validate = schemaValidator(found.parameters);
  } catch (err) {
    return errorResult(call, `Tool ${call.name} has an invalid parameters schema: ${(err as Error).message}`);
  }
  if (!validate(call.arguments)) {
    return errorResult(call, `Invalid arguments for tool ${call.name}: ${validationErrors(validate)}`);
  }
  try {
    const value = await found.execute(call.arguments, { ...context, toolCallId: call.id });
    return { toolCallId: call.id, name: call.name, content: toContent(value), isError: false };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return errorResult(call, `Tool ${call.name} failed: ${message}`);
  }
}

/**
 * Runs all calls of a step concurrently and waits for every one; results come back in call
 * order, failures included, so they can all go to the model in one continuation.
 */
export async function executeToolCalls(
  calls: readonly ToolCallData[],
  tools: readonly Tool[],
  context: Omit<ToolContext, "toolCallId">,
): Promise<ToolResultData[]> {
  const settled = await Promise.allSettled(calls.map((call) => executeToolCall(call, tools, context)));
  return settled.map((s, i) =>
    s.status === "fulfilled"
      ? s.value
      : errorResult(calls[i]!, `Tool ${calls[i]!.name} failed: ${String(s.reason)}`),
  );
}
