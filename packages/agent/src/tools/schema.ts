import { createHash } from "node:crypto";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { BUILTIN_VALIDATORS } from "./builtin-validators.generated.js";

/** How argument validators are compiled, at run time and ahead of time alike. */
export const AJV_OPTIONS = { allErrors: true, strict: false } as const;

// Built-in tool schemas have validators compiled ahead of time; other schemas are compiled on
// first use. Those not known to be valid are checked against the JSON Schema meta-schema first,
// explicitly: compiling the meta-schema costs more than all built-in tool schemas together.
// ajv itself is loaded then too: a process that only calls built-in tools never parses it.
let ajv: Promise<Ajv> | undefined;
const compiler = (): Promise<Ajv> => {
  ajv ??= import("ajv").then((mod) => {
    // A bundler may hand the CommonJS package over as a default export only.
    const { Ajv } = "Ajv" in mod ? mod : (mod as { default: typeof import("ajv") }).default;
    return new Ajv({ ...AJV_OPTIONS, validateSchema: false });
  });
  return ajv;
};
const precompiled = BUILTIN_VALIDATORS as unknown as Readonly<Record<string, ValidateFunction>>;
const cache = new WeakMap<object, ValidateFunction>();
const knownValid = new WeakSet<object>();

/** A schema's identity for precompiled validators: a hash of its JSON text. */
export function schemaKey(schema: Readonly<Record<string, unknown>>): string {
  return createHash("sha256").update(JSON.stringify(schema)).digest("hex").slice(0, 16);
}

/**
 * Marks a built-in tool's parameter schema as valid JSON Schema (a test checks every one against
 * the meta-schema), so validating arguments never needs the meta-schema; returns the schema.
 */
export function builtinSchema<T extends Record<string, unknown>>(schema: T): T {
  knownValid.add(schema);
  return schema;
}

function describe(e: ErrorObject): string {
  const where = e.instancePath === "" ? "arguments" : e.instancePath.slice(1).replace(/\//g, ".");
  if (e.keyword === "required")
    return `missing required property "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === "additionalProperties") {
    return `unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  }
  if (e.keyword === "enum") {
    return `${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return `${where} ${e.message ?? "is invalid"}`;
}

/**
 * Validates arguments against a JSON Schema (precompiled for built-in tools, else compiled once per
 * schema object). Resolves to undefined when valid, else a "; "-separated list of readable
 * problems; a schema that is not valid JSON Schema is reported as a problem rather than thrown.
 */
export async function validateArguments(
  schema: Readonly<Record<string, unknown>>,
  args: unknown,
): Promise<string | undefined> {
  let validate = cache.get(schema);
  if (!validate) {
    const compiled = precompiled[schemaKey(schema)] ?? (await compile(schema));
    if (typeof compiled === "string") return compiled;
    validate = compiled;
    cache.set(schema, validate);
  }
  if (validate(args)) return undefined;
  return (validate.errors ?? []).map(describe).join("; ");
}

/** Compiles a schema at run time; a schema that is not valid JSON Schema comes back as a problem. */
async function compile(schema: Readonly<Record<string, unknown>>): Promise<ValidateFunction | string> {
  try {
    const ajv = await compiler();
    if (!knownValid.has(schema) && !ajv.validateSchema(schema as object)) {
      return `the tool's parameter schema is invalid: ${ajv.errorsText(ajv.errors, { dataVar: "schema" })}`;
    }
    return ajv.compile(schema as object);
  } catch (err) {
    return `the tool's parameter schema is invalid: ${(err as Error).message}`;
  }
}
