import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

// Schemas are checked against the JSON Schema meta-schema explicitly, and only those not known
// to be valid: compiling the meta-schema costs more than all built-in tool schemas together, and
// would be paid by every process on its first tool call.
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
const cache = new WeakMap<object, ValidateFunction>();
const knownValid = new WeakSet<object>();

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
 * Validates arguments against a JSON Schema (compiled once per schema object). Returns undefined
 * when valid, else a "; "-separated list of readable problems. A schema that does not compile is
 * reported as a problem rather than thrown.
 */
export function validateArguments(
  schema: Readonly<Record<string, unknown>>,
  args: unknown,
): string | undefined {
  let validate = cache.get(schema);
  if (!validate) {
    try {
      if (!knownValid.has(schema) && !ajv.validateSchema(schema as object)) {
        return `the tool's parameter schema is invalid: ${ajv.errorsText(ajv.errors, { dataVar: "schema" })}`;
      }
      validate = ajv.compile(schema as object);
    } catch (err) {
      return `the tool's parameter schema is invalid: ${(err as Error).message}`;
    }
    cache.set(schema, validate);
  }
  if (validate(args)) return undefined;
  return (validate.errors ?? []).map(describe).join("; ");
}
