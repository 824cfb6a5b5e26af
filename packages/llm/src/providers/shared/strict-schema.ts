import type { JsonSchema } from "../../types/index.js";

/** Keywords OpenAI's strict mode (Structured Outputs) accepts in a schema. */
const STRICT_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "$schema",
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function strictNode(node: unknown, root: boolean): boolean {
  if (!isObject(node)) return false;
  for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) return false;
  // The root must be an object, not a union.
  if (root && (node.type !== "object" || node.anyOf !== undefined)) return false;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes("object") || node.properties !== undefined) {
    if (node.additionalProperties !== false) return false;
    const properties = isObject(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required : [];
    const names = Object.keys(properties);
    if (names.some((n) => !required.includes(n)) || required.length !== names.length) return false;
    if (!Object.values(properties).every((p) => strictNode(p, false))) return false;
  }
  if (node.items !== undefined && !strictNode(node.items, false)) return false;
  if (node.anyOf !== undefined) {
    if (!Array.isArray(node.anyOf) || !node.anyOf.every((s) => strictNode(s, false))) return false;
  }
  for (const key of ["$defs", "definitions"]) {
    const defs = node[key];
    if (defs !== undefined && (!isObject(defs) || !Object.values(defs).every((d) => strictNode(d, false))))
      return false;
  }
  return true;
}

/**
 * Whether OpenAI's strict mode accepts the schema as it is: an object root; every object closed
 * (`additionalProperties: false`) with every property required; only supported keywords. A
 * schema with an optional field is not, and must go with `strict: false`.
 */
export const isStrictCompatible = (schema: JsonSchema): boolean => strictNode(schema, true);

/** `strict` for a json_schema format: asked for (default true) and possible for this schema. */
export const strictFor = (schema: JsonSchema, asked: boolean | undefined): boolean =>
  asked !== false && isStrictCompatible(schema);
