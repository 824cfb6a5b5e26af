import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

const ajv = new Ajv({ allErrors: true, strict: false });
const cache = new WeakMap<object, ValidateFunction>();

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
      validate = ajv.compile(schema as object);
    } catch (err) {
      return `the tool's parameter schema is invalid: ${(err as Error).message}`;
    }
    cache.set(schema, validate);
  }
  if (validate(args)) return undefined;
  return (validate.errors ?? []).map(describe).join("; ");
}
