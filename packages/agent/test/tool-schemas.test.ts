import { readFile } from "node:fs/promises";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { builtinToolDefinitions } from "../src/codegen/builtin-schemas.js";
import { generateValidatorModule } from "../src/codegen/validator-codegen.js";
import {
  createAnthropicProfile,
  createAskUserTool,
  createGeminiProfile,
  createOpenAICompatibleProfile,
  createOpenAIProfile,
  createTodoTool,
  validateArguments,
} from "../src/index.js";
import { subagentTools, type ToolDefinition } from "../src/internals.js";
import { BUILTIN_VALIDATORS } from "../src/tools/builtin-validators.generated.js";
import { schemaKey } from "../src/tools/schema.js";

// Built-in tool schemas skip the meta-schema check when arguments are validated (compiling the
// meta-schema is the slowest part of a first tool call), so this suite is what keeps them honest.
const builtins = (): ToolDefinition[] => {
  const byName = new Map<string, ToolDefinition>();
  const profiles = [
    createAnthropicProfile("claude-sonnet-4-5"),
    createOpenAIProfile("gpt-5.2"),
    createGeminiProfile("gemini-2.5-pro"),
    createOpenAICompatibleProfile("llama3.2"),
  ];
  for (const p of profiles) for (const d of p.toolRegistry.definitions()) byName.set(`${p.id}:${d.name}`, d);
  for (const t of [...subagentTools(), createTodoTool(), createAskUserTool({ ask: async () => "yes" })]) {
    byName.set(`extra:${t.definition.name}`, t.definition);
  }
  return [...byName.values()];
};

describe("tool parameter schemas", () => {
  const meta = new Ajv({ strict: true, strictRequired: false });

  it.each(builtins().map((d) => [d.name, d] as const))("%s is valid, strict JSON Schema", (_, definition) => {
    expect(meta.validateSchema(definition.parameters), meta.errorsText(meta.errors)).toBe(true);
    expect(() => meta.compile(definition.parameters)).not.toThrow();
  });

  it("has a precompiled validator for every built-in schema, generated from the current schemas", async () => {
    const generated = await readFile(
      new URL("../src/tools/builtin-validators.generated.ts", import.meta.url),
      "utf8",
    );
    expect(generated, "run: node packages/agent/scripts/generate-validators.mjs").toBe(
      generateValidatorModule(),
    );
    for (const d of builtinToolDefinitions()) {
      expect(Object.keys(BUILTIN_VALIDATORS), d.name).toContain(schemaKey(d.parameters));
    }
  });

  it("reports problems through the precompiled validators as it does through compiled ones", async () => {
    const readFileSchema = createAnthropicProfile("claude-sonnet-4-5").toolRegistry.get("read_file")
      ?.definition.parameters as Record<string, unknown>;
    expect(Object.keys(BUILTIN_VALIDATORS)).toContain(schemaKey(readFileSchema));
    const bad = { offset: 0, limit: "ten", colour: "red" };
    const expected =
      'missing required property "file_path"; unknown property "colour"; offset must be >= 1; limit must be integer';
    expect(await validateArguments(readFileSchema, bad)).toBe(expected);
    // A copy with one more (unused) keyword has another key: compiled at run time, same answer.
    const copy = { ...readFileSchema, $comment: "compiled at run time" };
    expect(Object.keys(BUILTIN_VALIDATORS)).not.toContain(schemaKey(copy));
    expect(await validateArguments(copy, bad)).toBe(expected);
    expect(await validateArguments(readFileSchema, { file_path: "a.ts", offset: 2 })).toBeUndefined();
  });

  it("reports a custom tool's invalid schema as a problem, without throwing", async () => {
    const broken = { type: "object", properties: { path: { type: "strng" } }, required: "path" };
    const problem = await validateArguments(broken, { path: "a" });
    expect(problem).toMatch(/^the tool's parameter schema is invalid: /);
    expect(problem).toContain("schema/properties/path/type");
    expect(problem).toContain("schema/required must be array");
  });

  it("validates a custom tool's valid schema like a built-in one", async () => {
    const schema = {
      type: "object",
      properties: { n: { type: "integer", minimum: 1 } },
      required: ["n"],
      additionalProperties: false,
    };
    expect(await validateArguments(schema, { n: 2 })).toBeUndefined();
    expect(await validateArguments(schema, { n: 0 })).toBe("n must be >= 1");
    expect(await validateArguments(schema, {})).toBe('missing required property "n"');
  });
});
