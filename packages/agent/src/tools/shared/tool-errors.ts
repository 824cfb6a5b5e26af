import { EnvironmentError } from "../../environment/errors.js";
import type { ToolOutput } from "../../types/tool.js";

/**
 * The base of every expected failure a tool reports by throwing. The dispatcher turns it into an
 * error result whose text is the message and whose `errorCode` is `code`, in the tool result
 * (afterToolCall, CompletedToolCall) and in TOOL_CALL_END. `code` is stable for hosts and tests.
 */
export class ToolError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ToolError";
    this.code = code;
  }
}

/** An argument the tool cannot use even though the schema let it through. */
export class ArgumentError extends ToolError {
  /** The argument at fault, when one is. */
  readonly argument?: string;
  constructor(message: string, argument?: string) {
    super("invalid_argument", message);
    this.name = "ArgumentError";
    if (argument !== undefined) this.argument = argument;
  }
}

/** An error result for the model, with its code when there is one. */
export function errorOutput(message: string, errorCode?: string): ToolOutput {
  return { output: message, isError: true, ...(errorCode !== undefined && { errorCode }) };
}

/** Whether an error is an expected failure (a ToolError or an EnvironmentError) rather than a bug. */
export function isExpectedFailure(err: unknown): err is ToolError | EnvironmentError {
  return err instanceof ToolError || err instanceof EnvironmentError;
}

/** Turns an expected failure of a tool into an error result with its code; anything else is rethrown. */
export function expectedFailure(err: unknown, prefix = ""): ToolOutput {
  if (isExpectedFailure(err)) return errorOutput(prefix + err.message, err.code);
  throw err;
}

/** A required string argument; odd values get a clear error instead of a crash. */
export function stringArg(args: Readonly<Record<string, unknown>>, name: string): string {
  const value = args[name];
  if (typeof value !== "string") throw new ArgumentError(`${name} must be a string.`, name);
  return value;
}
