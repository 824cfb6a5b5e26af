import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import {
  createAnthropicProfile,
  createAskUserTool,
  createGeminiProfile,
  createOpenAICompatibleProfile,
  createOpenAIProfile,
  createTodoTool,
  subagentTools,
  type ToolDefinition,
  validateArguments,
} from "../src/index.js";

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

  it("reports a custom tool's invalid schema as a problem, without throwing", () => {
    const broken = { type: "object", properties: { path: { type: "strng" } }, required: "path" };
    const problem = validateArguments(broken, { path: "a" });
    expect(problem).toMatch(/^the tool's parameter schema is invalid: /);
    expect(problem).toContain("schema/properties/path/type");
    expect(problem).toContain("schema/required must be array");
  });

  it("validates a custom tool's valid schema like a built-in one", () => {
    const schema = {
      type: "object",
      properties: { n: { type: "integer", minimum: 1 } },
      required: ["n"],
      additionalProperties: false,
    };
    expect(validateArguments(schema, { n: 2 })).toBeUndefined();
    expect(validateArguments(schema, { n: 0 })).toBe("n must be >= 1");
    expect(validateArguments(schema, {})).toBe('missing required property "n"');
  });
});
