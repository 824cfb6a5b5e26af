import { EnvironmentError } from "../../environment/errors.js";
import type { ToolOutput } from "../../types/tool.js";
import { PatchApplyError, PatchParseError } from "../apply-patch/types.js";
import { EditError } from "./apply-edit.js";
import { NotTextError } from "./text-file.js";

/** An error result for the model. */
export function errorOutput(message: string): ToolOutput {
  return { output: message, isError: true };
}

/** Turns an expected failure of a file tool into an error result; anything else is rethrown. */
export function expectedFailure(err: unknown, prefix = ""): ToolOutput {
  if (
    err instanceof EnvironmentError ||
    err instanceof EditError ||
    err instanceof PatchParseError ||
    err instanceof PatchApplyError ||
    err instanceof NotTextError ||
    err instanceof ArgumentError
  ) {
    return errorOutput(prefix + err.message);
  }
  throw err;
}

/** A required string argument; odd values get a clear error instead of a crash. */
export function stringArg(args: Readonly<Record<string, unknown>>, name: string): string {
  const value = args[name];
  if (typeof value !== "string") throw new ArgumentError(`${name} must be a string.`);
  return value;
}

/** An argument the executor could not use even though the schema let it through. */
export class ArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArgumentError";
  }
}
