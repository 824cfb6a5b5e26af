import type { Tool as LlmTool, ToolContext as LlmToolContext } from "@attractor/llm";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { AnyTool, RegisteredTool, ToolOutput } from "../types/tool.js";

/** Which part of a tool object is wrong. */
export type ToolShapeField =
  | "tool"
  | "name"
  | "description"
  | "parameters"
  | "execute"
  | "readOnly"
  | "targets";

/** A tool object that cannot be registered; thrown at registration, not at the first call. */
export class ToolDefinitionError extends Error {
  /** The tool's name when it has a usable one. */
  readonly toolName: string | undefined;
  readonly field: ToolShapeField;
  readonly reason: string;
  constructor(toolName: string | undefined, field: ToolShapeField, reason: string) {
    super(`Invalid tool${toolName === undefined ? "" : ` "${toolName}"`}: ${field} ${reason}`);
    this.name = "ToolDefinitionError";
    this.toolName = toolName;
    this.field = field;
    this.reason = reason;
  }
}

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether a value is a RegisteredTool rather than an llm tool (it has `definition`). */
function isRegistered(tool: AnyTool): tool is RegisteredTool {
  return "definition" in tool;
}

/** Checks a registered tool's shape; throws ToolDefinitionError naming the field at fault. */
export function checkRegisteredTool(tool: unknown): RegisteredTool {
  if (!isObject(tool)) throw new ToolDefinitionError(undefined, "tool", "must be an object");
  const definition = tool.definition;
  if (!isObject(definition))
    throw new ToolDefinitionError(undefined, "tool", "needs a definition { name, description, parameters }");
  const name = typeof definition.name === "string" ? definition.name : undefined;
  if (name === undefined || !TOOL_NAME.test(name))
    throw new ToolDefinitionError(
      name,
      "name",
      "must be a letter then letters, digits, _ or -, at most 64 characters",
    );
  if (typeof definition.description !== "string")
    throw new ToolDefinitionError(name, "description", "must be a string");
  const parameters = definition.parameters;
  if (!isObject(parameters) || parameters.type !== "object")
    throw new ToolDefinitionError(name, "parameters", 'must be a JSON Schema object with type "object"');
  if (typeof tool.executor !== "function")
    throw new ToolDefinitionError(name, "execute", "must be a function (the tool's executor)");
  if (tool.readOnly !== undefined && typeof tool.readOnly !== "boolean")
    throw new ToolDefinitionError(name, "readOnly", "must be true, false or absent");
  if (tool.targets !== undefined && typeof tool.targets !== "function")
    throw new ToolDefinitionError(name, "targets", "must be a function of the arguments or absent");
  return tool as unknown as RegisteredTool;
}

/** A tool's result as the dispatcher takes it: strings as they are, other values as JSON. */
function asOutput(value: unknown): string | ToolOutput {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return JSON.stringify(value) ?? String(value);
}

/**
 * The RegisteredTool for any accepted tool: a RegisteredTool is checked and returned as it is; an
 * llm `tool()` becomes one whose executor calls its `execute` (with `messages` empty: the agent
 * keeps the conversation). Throws ToolDefinitionError for a bad object or a tool without execute.
 */
export function toRegisteredTool(tool: AnyTool): RegisteredTool {
  if (!isObject(tool)) throw new ToolDefinitionError(undefined, "tool", "must be an object");
  if (isRegistered(tool)) return checkRegisteredTool(tool);
  const llm = tool as LlmTool<Record<string, unknown>>;
  const execute = llm.execute;
  const name = typeof llm.name === "string" ? llm.name : undefined;
  if (typeof execute !== "function")
    throw new ToolDefinitionError(name, "execute", "is missing: a session can only offer tools it can run");
  return checkRegisteredTool({
    definition: { name: llm.name, description: llm.description, parameters: llm.parameters },
    executor: async (args, _env, context) =>
      asOutput(
        await execute.call(llm, args as Record<string, unknown>, {
          toolCallId: context.toolCallId,
          messages: [],
          ...(context.signal !== undefined && { signal: context.signal }),
        }),
      ),
  } satisfies RegisteredTool);
}

/**
 * An llm `tool()` running a registered tool in a given environment, for generate() outside a
 * Session; an error result becomes a thrown Error, which generate() reports as is_error.
 */
export function toLlmTool(tool: RegisteredTool, env: ExecutionEnvironment): LlmTool {
  const { name, description, parameters } = tool.definition;
  return {
    name,
    description,
    parameters,
    async execute(args: Record<string, unknown>, context: LlmToolContext): Promise<string> {
      const raw = await tool.executor(args, env, {
        toolCallId: context.toolCallId,
        ...(context.signal !== undefined && { signal: context.signal }),
      });
      const out = typeof raw === "string" ? { output: raw } : raw;
      if (out.isError) throw new Error(out.output);
      return out.output;
    },
  };
}
