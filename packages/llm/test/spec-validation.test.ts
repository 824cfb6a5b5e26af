// The request checker the wire servers apply to every request: it must refuse what the providers
// refuse, or the wire tests prove nothing.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Protocol, protocolOf, specSource, specViolations } from "../src/testing/index.js";

const valid: Record<Protocol, Record<string, unknown>> = {
  "openai-responses": {
    model: "gpt-5.2",
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
    store: false,
    tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: false }],
  },
  "openai-chat-completions": {
    model: "qwen3:8b",
    messages: [{ role: "user", content: "hi" }],
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
  },
  "anthropic-messages": {
    model: "claude-sonnet-4-5",
    max_tokens: 100,
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  },
  gemini: {
    contents: [{ role: "user", parts: [{ text: "hi" }] }],
    generationConfig: { thinkingConfig: { includeThoughts: true } },
  },
};

const protocols = Object.keys(valid) as Protocol[];

describe("request specifications", () => {
  for (const protocol of protocols) {
    it(`${protocol}: accepts a valid body and refuses unknown fields, wrong types and missing fields`, () => {
      const body = valid[protocol];
      expect(specViolations(protocol, body)).toEqual([]);
      expect(specViolations(protocol, { ...body, bogus_field: 1 }).join()).toMatch(/bogus_field/);
      const key = protocol === "gemini" ? "contents" : protocol === "openai-responses" ? "input" : "model";
      expect(specViolations(protocol, { ...body, [key]: 42 })).not.toEqual([]);
      if (protocol === "openai-responses") {
        // Every top-level field is optional here; required fields are checked inside items.
        const output = { ...body, input: [{ type: "function_call_output", output: "x" }] };
        expect(specViolations(protocol, output).join()).toMatch(/call_id/);
      } else {
        const { [key]: _dropped, ...missing } = body;
        expect(specViolations(protocol, missing).join()).toMatch(new RegExp(key));
      }
    });
  }

  it("refuses invalid enum values", () => {
    const responses = {
      ...valid["openai-responses"],
      input: [{ type: "message", role: "robot", content: "x" }],
    };
    expect(specViolations("openai-responses", responses)).not.toEqual([]);
    const anthropic = { ...valid["anthropic-messages"], messages: [{ role: "system", content: "x" }] };
    expect(specViolations("anthropic-messages", anthropic)).not.toEqual([]);
    const gemini = {
      contents: [{ role: "user", parts: [{ text: "x" }] }],
      toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } },
    };
    expect(specViolations("gemini", gemini)).not.toEqual([]);
    const chat = { ...valid["openai-chat-completions"], reasoning_effort: "extreme" };
    expect(specViolations("openai-chat-completions", chat)).not.toEqual([]);
  });

  it("refuses a Responses output message replayed without its id and status", () => {
    const body = {
      ...valid["openai-responses"],
      input: [
        { type: "message", role: "user", content: "hi" },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "x", annotations: [] }],
        },
      ],
    };
    expect(specViolations("openai-responses", body)).not.toEqual([]);
  });

  it("refuses Responses output text sent back without logprobs, which OpenAI's specification requires", () => {
    const replay = (part: Record<string, unknown>) => ({
      ...valid["openai-responses"],
      input: [
        { type: "message", role: "user", content: "hi" },
        { type: "message", role: "assistant", id: "msg_1", status: "completed", content: [part] },
      ],
    });
    const part = { type: "output_text", text: "x", annotations: [] };
    expect(specViolations("openai-responses", replay(part)).join()).toMatch(/logprobs/);
    expect(specViolations("openai-responses", replay({ ...part, logprobs: [] }))).toEqual([]);
  });

  it("checks where tool results go, on every protocol", () => {
    expect(
      specViolations("openai-chat-completions", {
        model: "m",
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
          { role: "tool", tool_call_id: "a", content: "1" },
          { role: "user", content: [{ type: "text", text: "image" }] },
          { role: "tool", tool_call_id: "b", content: "2" },
        ],
      }).join(),
    ).toMatch(/tool call b is not answered/);
    expect(
      specViolations("openai-responses", {
        model: "m",
        input: [
          { type: "function_call", call_id: "a", name: "f", arguments: "{}" },
          { type: "function_call_output", call_id: "z", output: "1" },
        ],
      }).join(),
    ).toMatch(/call a has no function_call_output/);
    expect(
      specViolations("gemini", {
        contents: [
          { role: "user", parts: [{ text: "x" }] },
          { role: "model", parts: [fc("f"), fc("g")] },
          {
            role: "user",
            parts: [fr("f"), { inlineData: { mimeType: "image/png", data: "AA==" } }, fr("g")],
          },
        ],
      }).join(),
    ).toMatch(/function responses/);
    expect(
      specViolations("anthropic-messages", {
        model: "m",
        max_tokens: 10,
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
          {
            role: "user",
            content: [
              { type: "text", text: "note" },
              { type: "tool_result", tool_use_id: "t1", content: "1" },
            ],
          },
        ],
      }).join(),
    ).toMatch(/tool_result blocks must come first/);
  });

  it("checks role alternation, cache breakpoints and thinking rules", () => {
    const cc = { type: "ephemeral" };
    const text = (t: string) => ({ type: "text", text: t, cache_control: cc });
    const errors = specViolations("anthropic-messages", {
      model: "m",
      max_tokens: 2000,
      system: [text("a"), text("b")],
      thinking: { type: "enabled", budget_tokens: 4000 },
      temperature: 0.2,
      messages: [
        { role: "user", content: [text("c")] },
        { role: "user", content: [text("d")] },
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t", content: "1", cache_control: cc }],
        },
      ],
    }).join("\n");
    expect(errors).toMatch(/roles must alternate/);
    expect(errors).toMatch(/5 cache_control breakpoints/);
    expect(errors).toMatch(/budget_tokens must be below max_tokens/);
    expect(errors).toMatch(/temperature cannot be changed/);
    expect(errors).toMatch(/must start with a thinking block/);
    const gemini = specViolations(
      "gemini",
      {
        contents: [
          { role: "user", parts: [{ text: "x" }] },
          { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
          { role: "user", parts: [fr("f")] },
        ],
      },
      "/v1beta/models/gemini-3-pro-preview:generateContent",
    );
    expect(gemini.join()).toMatch(/thoughtSignature/);
  });

  it("knows which paths carry model requests", () => {
    expect(protocolOf("POST", "/v1/responses")).toBe("openai-responses");
    expect(protocolOf("POST", "/v1/chat/completions")).toBe("openai-chat-completions");
    expect(protocolOf("POST", "/v1/messages")).toBe("anthropic-messages");
    expect(protocolOf("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent")).toBe("gemini");
    expect(protocolOf("GET", "/v1/models")).toBeUndefined();
  });

  it("was derived from the SDK versions installed (regenerate with scripts/generate-request-schemas.mjs)", () => {
    const require = createRequire(import.meta.url);
    const installed = (pkg: string): string => {
      const dir = require.resolve.paths(pkg)!.map((p) => join(p, pkg));
      for (const d of dir) {
        try {
          return JSON.parse(readFileSync(join(d, "package.json"), "utf8")).version;
        } catch {}
      }
      throw new Error(`${pkg} not installed`);
    };
    for (const protocol of ["openai-responses", "openai-chat-completions", "anthropic-messages"] as const) {
      const source = specSource(protocol);
      expect(source.version, `${protocol} schema is stale`).toBe(installed(source.package!));
    }
    expect(specSource("gemini")).toMatchObject({ version: "v1beta" });
  });
});

function call(id: string) {
  return { id, type: "function", function: { name: "f", arguments: "{}" } };
}
function fc(name: string) {
  return { functionCall: { name, args: {} }, thoughtSignature: "c2ln" };
}
function fr(name: string) {
  return { functionResponse: { name, response: { result: "ok" } } };
}
