import { Ajv, type ValidateFunction } from "ajv";
import { ConfigurationError } from "../errors.js";
import type { JsonSchema, Message, ToolDefinition } from "../types/index.js";

/** What a `tool()` handler gets besides its arguments (the agent's tools get a ToolCallContext). */
export interface ToolContext {
  readonly toolCallId: string;
  /** The conversation up to and including the assistant message that made the call. */
  readonly messages: readonly Message[];
  /** Aborts when the generation is aborted or times out. */
  readonly signal?: AbortSignal;
}

/**
 * A tool the model may call. With `execute` it is active: generate() runs it and sends the result
 * back. Without, it is passive: the calls are returned to the caller.
 */
export interface Tool<Args = Record<string, unknown>> extends ToolDefinition {
  /** Returns a string, or any JSON value; a thrown error becomes an is_error result. */
  execute?(args: Args, context: ToolContext): unknown;
}

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]*$/;

// Made on first use: constructing ajv compiles its meta-schema, which importing this package
// (and every program that only streams text) should not pay for.
let instance: Ajv | undefined;
const ajv = (): Ajv => {
  instance ??= new Ajv({ allErrors: true, strict: false });
  return instance;
};
const validators = new WeakMap<object, ValidateFunction>();

/** The (cached) ajv validator for a schema; throws when the schema itself is invalid. */
export function schemaValidator(schema: JsonSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = ajv().compile(schema as Record<string, unknown>);
    validators.set(schema, validate);
  }
  return validate;
}

/** A readable summary of a validator's last errors. */
export const validationErrors = (validate: ValidateFunction): string =>
  ajv().errorsText(validate.errors, { dataVar: "arguments" });

/**
 * Checks a tool definition: name matches [a-zA-Z][a-zA-Z0-9_-]* and has at most 64 characters,
 * parameters is an object schema that compiles. Throws ConfigurationError otherwise.
 */
export function validateToolDefinition(def: ToolDefinition): void {
  if (typeof def.name !== "string" || !TOOL_NAME.test(def.name) || def.name.length > 64) {
    throw new ConfigurationError(
      `invalid tool name ${JSON.stringify(def.name)}: use a letter then letters, digits, _ or -, at most 64 characters`,
    );
  }
  if (def.parameters?.type !== "object") {
    throw new ConfigurationError(`tool ${def.name}: parameters must be a JSON Schema with type "object"`);
  }
  try {
    schemaValidator(def.parameters);
  } catch (err) {
    throw new ConfigurationError(`tool ${def.name}: invalid parameters schema: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Defines a tool, validating its name and schema now rather than at the first call. */
export function tool<Args = Record<string, unknown>>(definition: Tool<Args>): Tool<Args> {
  validateToolDefinition(definition);
  return definition;
}

/** The wire definition of a tool (without its handler). */
export const toToolDefinition = (t: ToolDefinition): ToolDefinition => ({
  name: t.name,
  description: t.description,
  parameters: t.parameters,
});
