import { QueryOptionError } from "./errors.js";
import type { JsonSchema } from "./types.js";

/** How a final answer is held to an output schema. */
export interface OutputCheck {
  readonly schema: JsonSchema;
  /** The answer parsed and valid, or why not. */
  check(answer: string): { ok: true; value: unknown } | { ok: false; problem: string };
  /** The message asking the model to send its answer again, fixed. */
  fixRequest(problem: string): string;
}

/** The answer's JSON: the whole text, or the one fenced block it consists of. */
function jsonText(answer: string): string {
  const text = answer.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return fenced ? (fenced[1] ?? "") : text;
}

/** Compiles the schema (a QueryOptionError when it is not a valid JSON Schema). */
export async function createOutputCheck(schema: JsonSchema): Promise<OutputCheck> {
  const { Ajv } = await import("ajv");
  const ajv = new Ajv({ strict: false, allErrors: true });
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new QueryOptionError(
      "outputSchema",
      `not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    schema,
    check(answer) {
      let value: unknown;
      try {
        value = JSON.parse(jsonText(answer));
      } catch (error) {
        return {
          ok: false,
          problem: `the answer is not JSON (${error instanceof Error ? error.message : String(error)})`,
        };
      }
      if (validate(value)) return { ok: true, value };
      return { ok: false, problem: ajv.errorsText(validate.errors, { dataVar: "answer" }) };
    },
    fixRequest: (problem) =>
      `Your final answer must be only a JSON value valid against the output schema, with no other text. It is not: ${problem}. Send the corrected JSON now.`,
  };
}

/** The system prompt's paragraph on the final answer's form. */
export function outputInstructions(schema: JsonSchema): string {
  return `When the task is done, your final message must be only a JSON value (no prose, no code fence) valid against this JSON Schema:\n${JSON.stringify(schema)}`;
}
