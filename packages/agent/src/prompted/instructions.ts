import type { ToolDefinition } from "@attractor/llm";
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./parser.js";

/** The system-prompt section that teaches a model without native tool calling to call tools in text. */
export function promptedToolInstructions(tools: readonly ToolDefinition[]): string {
  const list = tools
    .map((t) => `### ${t.name}\n${t.description}\nParameters (JSON Schema): ${JSON.stringify(t.parameters)}`)
    .join("\n\n");
  return [
    "# Calling tools",
    "You can call the tools below. To call one, write a block exactly like this, with the JSON on one or more lines:",
    "",
    `${TOOL_CALL_OPEN}{"name": "read_file", "arguments": {"file_path": "src/index.ts"}}${TOOL_CALL_CLOSE}`,
    "",
    "Rules:",
    '- One JSON object per block, with "name" and "arguments"; the arguments follow the tool\'s parameters.',
    "- You may write several blocks in one reply; they run in order.",
    '- After your tool calls, stop and wait: the results come back in the next user message as <tool_result name="…"> blocks (<tool_error> when a call failed).',
    "- Only call the tools listed below, with the parameter names they define.",
    "- When the task is done, answer in plain text without any tool_call block.",
    "",
    "## Tools",
    "",
    list,
  ].join("\n");
}

/** A tool result as user-message text for a model in prompted mode. */
export function promptedToolResult(name: string, output: string, isError: boolean): string {
  const tag = isError ? "tool_error" : "tool_result";
  return `<${tag} name="${name}">\n${output}\n</${tag}>`;
}
