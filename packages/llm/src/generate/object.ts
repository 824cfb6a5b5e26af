import { getDefaultClient } from "../default-client.js";
import { NoObjectGeneratedError } from "../errors.js";
import type { JsonSchema } from "../types/index.js";
import { completeStep, toolLoop } from "./loop.js";
import { schemaValidator, validationErrors } from "./tool.js";
import type { GenerateOptions, GenerateResult } from "./types.js";

export interface GenerateObjectOptions
  extends Omit<GenerateOptions, "tools" | "toolChoice" | "responseFormat" | "maxToolRounds" | "stopWhen"> {
  /** JSON Schema of the object to produce. */
  readonly schema: JsonSchema;
  /** Names the schema (and, on Anthropic, the tool that carries it). Default "output". */
  readonly schemaName?: string;
  readonly schemaDescription?: string;
}

/** Strips a Markdown code fence around JSON, which some models add despite instructions. */
const unfence = (text: string): string => {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return m ? m[1]! : text;
};

/**
 * Generates an object matching `schema`: native JSON-schema output on OpenAI, compatible servers
 * and Gemini; a forced tool whose input schema is the output schema on Anthropic. The object is
 * parsed and validated into `output`; failure is NoObjectGeneratedError (not retried).
 */
export async function generateObject<T = unknown>(
  options: GenerateObjectOptions,
): Promise<GenerateResult<T>> {
  const client = options.client ?? getDefaultClient();
  const provider = client.adapter(options.provider).name;
  const name = options.schemaName ?? "output";
  const viaTool = provider === "anthropic";
  const { schema, schemaName: _n, schemaDescription, ...rest } = options;
  const base: GenerateOptions = { ...rest, client, maxToolRounds: 0 };
  const run: GenerateOptions = viaTool
    ? {
        ...base,
        tools: [
          {
            name,
            description: schemaDescription ?? "Respond with the requested object by calling this tool.",
            parameters: schema,
          },
        ],
        toolChoice: { mode: "named", toolName: name },
      }
    : { ...base, responseFormat: { type: "json_schema", schema, name, strict: true } };

  const it = toolLoop(run, completeStep);
  let next = await it.next();
  while (!next.done) next = await it.next();
  const result = next.value;

  let text = result.text;
  let value: unknown;
  if (viaTool) {
    const call = result.toolCalls.find((c) => c.name === name);
    if (call === undefined)
      throw new NoObjectGeneratedError("the model did not call the output tool", { text });
    text = call.rawArguments ?? JSON.stringify(call.arguments);
    value = call.arguments;
  } else {
    try {
      value = JSON.parse(unfence(text));
    } catch (err) {
      throw new NoObjectGeneratedError(`the model's output is not JSON: ${(err as Error).message}`, {
        text,
        cause: err,
      });
    }
  }
  const validate = schemaValidator(schema);
  if (!validate(value)) {
    throw new NoObjectGeneratedError(
      `the model's output does not match the schema: ${validationErrors(validate).replaceAll("arguments", "output")}`,
      { text },
    );
  }
  return { ...result, output: value as T };
}
