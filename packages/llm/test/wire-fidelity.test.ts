// Requests the real APIs would reject, or would accept while losing quality: each case is sent
// through the real adapter to a local server, and the body it received is checked.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProviderAdapter } from "../src/providers/adapter.js";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { GeminiAdapter } from "../src/providers/gemini/index.js";
import { OpenAIAdapter } from "../src/providers/openai/index.js";
import { OpenAICompatibleAdapter } from "../src/providers/openai-compatible/index.js";
import {
  message as anthropicMessage,
  chatUsage,
  completionBody,
  generateContentBody,
  messageItem,
  type Reply,
  responseObject,
  sse,
  sseReply,
  startWireServer,
  usage,
  usageMetadata,
  type WireServer,
} from "../src/testing/index.js";
import {
  assistantMessage,
  type ContentPart,
  type Message,
  type Request,
  type Response,
  responseToolCalls,
  type StreamEvent,
  toolResultMessage,
  userMessage,
} from "../src/types/index.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const image = { data: PNG, mediaType: "image/png" } as const;

const openai = () => new OpenAIAdapter({ apiKey: "sk-test", baseUrl: `${server.url}/v1`, env: {} });
const compatible = () => new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, env: {} });
const anthropic = () => new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: server.url, env: {} });
const gemini = () => new GeminiAdapter({ apiKey: "test-key", baseUrl: server.url, env: {} });

const okReply: Record<string, Reply> = {
  openai: { kind: "json", body: responseObject("r", [messageItem("m", "ok")], usage(1, 1)) },
  "openai-compatible": {
    kind: "json",
    body: completionBody({ id: "c", content: "ok", finish: "stop", usage: chatUsage(1, 1) }),
  },
  anthropic: { kind: "json", body: anthropicMessage([{ type: "text", text: "ok" }], "end_turn") },
  gemini: { kind: "json", body: generateContentBody([{ text: "ok" }], usageMetadata(1, 1)) },
};

/** Sends the request once and returns the body the server received. */
async function bodyOf(adapter: ProviderAdapter, request: Request) {
  server.setHandler([okReply[adapter.name]!]);
  await adapter.complete(request);
  return server.requests.at(-1)!;
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<Response> {
  let last: StreamEvent | undefined;
  for await (const e of stream) last = e;
  if (last?.type !== "finish") throw new Error("no finish");
  return last.response;
}

/** The provider's own reasoning, as its adapter returned it, for histories with reasoning on. */
const OWN_THINKING: Record<string, ContentPart> = {
  anthropic: {
    kind: "thinking",
    thinking: { text: "Both at once.", signature: "c2ln", provider: "anthropic" },
  },
  openai: {
    kind: "thinking",
    thinking: { text: "Both at once.", signature: "gAAA-enc", id: "rs_p", provider: "openai" },
  },
  gemini: { kind: "thinking", thinking: { text: "Both at once.", signature: "c2ln", provider: "gemini" } },
  "openai-compatible": {
    kind: "thinking",
    thinking: { text: "Both at once.", provider: "openai-compatible", id: "reasoning-0" },
  },
};

/** Two parallel calls, the image coming from the first or the second; reasoning first when given. */
function parallelWithImage(imageFrom: "first" | "last", thinking?: ContentPart): Message[] {
  return [
    userMessage("Look at logo.png and list the files."),
    assistantMessage([
      ...(thinking !== undefined ? [thinking] : []),
      { kind: "tool_call", toolCall: { id: "call_a", name: "read_file", arguments: { path: "logo.png" } } },
      { kind: "tool_call", toolCall: { id: "call_b", name: "shell", arguments: { command: "ls" } } },
    ]),
    toolResultMessage("call_a", "logo.png (1x1 PNG)", false, {
      name: "read_file",
      ...(imageFrom === "first" && { image }),
    }),
    toolResultMessage("call_b", "logo.png\nREADME.md", false, {
      name: "shell",
      ...(imageFrom === "last" && { image }),
    }),
  ];
}

const tools = [
  { name: "read_file", description: "Read a file", parameters: { type: "object", properties: {} } },
  { name: "shell", description: "Run a command", parameters: { type: "object", properties: {} } },
];

describe("parallel tool results with an image", () => {
  for (const from of ["first", "last"] as const) {
    it(`Gemini: one user turn, responses in call order, the image after them (image ${from})`, async () => {
      const { body } = await bodyOf(gemini(), {
        model: "gemini-2.5-flash",
        messages: parallelWithImage(from),
        tools,
      });
      expect(body.contents.map((c: { role: string }) => c.role)).toEqual(["user", "model", "user"]);
      const parts = body.contents[2].parts;
      expect(parts.map((p: Record<string, unknown>) => Object.keys(p)[0])).toEqual([
        "functionResponse",
        "functionResponse",
        "inlineData",
      ]);
      expect(parts[0].functionResponse.name).toBe("read_file");
      expect(parts[1].functionResponse.name).toBe("shell");
    });

    it(`Chat Completions: the tool messages right after the calls, the image after them (image ${from})`, async () => {
      const { body } = await bodyOf(compatible(), {
        model: "qwen3:8b",
        messages: parallelWithImage(from),
        tools,
      });
      const roles = body.messages.map((m: { role: string }) => m.role);
      expect(roles).toEqual(["user", "assistant", "tool", "tool", "user"]);
      expect(body.messages[2].tool_call_id).toBe("call_a");
      expect(body.messages[3].tool_call_id).toBe("call_b");
      const last = body.messages[4].content;
      expect(last.map((c: { type: string }) => c.type)).toEqual(["text", "image_url"]);
      expect(last[0].text).toContain(from === "first" ? "call_a" : "call_b");
    });

    it(`Responses: the image inside its function_call_output (image ${from})`, async () => {
      const { body } = await bodyOf(openai(), { model: "gpt-5.2", messages: parallelWithImage(from), tools });
      expect(body.input.map((i: { type: string }) => i.type)).toEqual([
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
      ]);
      const withImage = body.input[from === "first" ? 3 : 4];
      const without = body.input[from === "first" ? 4 : 3];
      expect(withImage.output.map((c: { type: string }) => c.type)).toEqual(["input_text", "input_image"]);
      expect(withImage.output[1].image_url).toBe(`data:image/png;base64,${PNG}`);
      expect(typeof without.output).toBe("string");
    });

    it(`Anthropic: the image inside its tool_result, results in one user turn (image ${from})`, async () => {
      const { body } = await bodyOf(anthropic(), {
        model: "claude-sonnet-4-5",
        messages: parallelWithImage(from),
        tools,
      });
      expect(body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
      const results = body.messages[2].content;
      expect(results.map((b: { type: string }) => b.type)).toEqual(["tool_result", "tool_result"]);
      const withImage = results[from === "first" ? 0 : 1];
      expect(withImage.content.map((b: { type: string }) => b.type)).toEqual(["text", "image"]);
    });
  }
});

describe("parallel tool results with an image, reasoning on", () => {
  for (const from of ["first", "last"] as const) {
    it(`Anthropic keeps thinking on and the thinking block first (image ${from})`, async () => {
      const { body } = await bodyOf(anthropic(), {
        model: "claude-sonnet-4-5",
        messages: parallelWithImage(from, OWN_THINKING.anthropic),
        tools,
        reasoningEffort: "medium",
      });
      expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
      expect(body.messages[1].content.map((b: { type: string }) => b.type)).toEqual([
        "thinking",
        "tool_use",
        "tool_use",
      ]);
    });

    it(`Responses replays the reasoning item before the calls (image ${from})`, async () => {
      const { body } = await bodyOf(openai(), {
        model: "gpt-5.2",
        messages: parallelWithImage(from, OWN_THINKING.openai),
        tools,
        reasoningEffort: "medium",
      });
      expect(body.input.map((i: { type: string }) => i.type)).toEqual([
        "message",
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
      ]);
      expect(body.include).toEqual(["reasoning.encrypted_content"]);
    });

    it(`Gemini 3 keeps the thought and the call's own signature (image ${from})`, async () => {
      const messages = parallelWithImage(from, OWN_THINKING.gemini).map((m) =>
        m.role !== "assistant"
          ? m
          : {
              ...m,
              content: m.content.map((p) =>
                p.kind === "tool_call" && p.toolCall.id === "call_a"
                  ? { ...p, toolCall: { ...p.toolCall, thoughtSignature: "b3du" } }
                  : p,
              ),
            },
      );
      const { body } = await bodyOf(gemini(), {
        model: "gemini-3-pro-preview",
        messages,
        tools,
        reasoningEffort: "high",
      });
      const parts = body.contents[1].parts;
      expect(parts[0]).toMatchObject({ thought: true, thoughtSignature: "c2ln" });
      expect(parts[1].thoughtSignature).toBe("b3du");
      // Gemini 3 takes the image inside the function response that returned it.
      const replies = body.contents[2].parts;
      expect(replies.map((p: Record<string, unknown>) => Object.keys(p)[0])).toEqual([
        "functionResponse",
        "functionResponse",
      ]);
      const withImage = replies[from === "first" ? 0 : 1].functionResponse;
      expect(withImage.parts).toEqual([{ inlineData: { mimeType: "image/png", data: PNG } }]);
      expect(replies[from === "first" ? 1 : 0].functionResponse.parts).toBeUndefined();
    });

    it(`Chat Completions sends reasoning_content only to a server that asked (image ${from})`, async () => {
      const asking = new OpenAICompatibleAdapter({
        baseUrl: `${server.url}/v1`,
        env: {},
        sendReasoning: true,
      });
      const messages = parallelWithImage(from, OWN_THINKING["openai-compatible"]);
      const { body } = await bodyOf(asking, { model: "deepseek-reasoner", messages, tools });
      expect(body.messages[1].reasoning_content).toBe("Both at once.");
      expect(body.messages.map((m: { role: string }) => m.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
      ]);
      const overridden = await bodyOf(asking, {
        model: "deepseek-reasoner",
        messages,
        tools,
        providerOptions: { "openai-compatible": { sendReasoning: false } },
      });
      expect(overridden.body.messages[1].reasoning_content).toBeUndefined();
      const plain = await bodyOf(compatible(), { model: "qwen3:8b", messages, tools });
      expect(plain.body.messages[1].reasoning_content).toBeUndefined();
    });
  }
});

describe("Responses output messages replayed as input items", () => {
  it("keeps the item id, status and phase the model returned", async () => {
    const item = { ...messageItem("msg_9", "Looking at the files."), phase: "commentary" };
    const call = {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name: "shell",
      arguments: '{"command":"ls"}',
      status: "completed",
    };
    const wire = responseObject("resp_9", [item, call], usage(5, 5));
    server.setHandler([sseReply(wire)]);
    const first = await collect(openai().stream({ model: "gpt-5.2", messages: [userMessage("ls")], tools }));
    expect(first.message.content[0]).toMatchObject({
      kind: "text",
      item: { provider: "openai", id: "msg_9", phase: "commentary" },
    });
    const { body } = await bodyOf(openai(), {
      model: "gpt-5.2",
      messages: [userMessage("ls"), first.message, toolResultMessage("call_1", "a.txt")],
      tools,
    });
    expect(body.input[1]).toEqual({
      type: "message",
      role: "assistant",
      id: "msg_9",
      status: "completed",
      phase: "commentary",
      content: [{ type: "output_text", text: "Looking at the files.", annotations: [], logprobs: [] }],
    });
  });
});

describe("structured output with an optional field", () => {
  const schema = {
    type: "object",
    properties: { city: { type: "string" }, country: { type: "string" } },
    required: ["city"],
  };
  const format = { type: "json_schema", schema, name: "place", strict: true } as const;

  it("Responses and Chat Completions send strict: false for a schema strict mode rejects", async () => {
    const r = await bodyOf(openai(), {
      model: "gpt-5.2",
      messages: [userMessage("x")],
      responseFormat: format,
    });
    expect(r.body.text.format).toEqual({ type: "json_schema", name: "place", schema, strict: false });
    const c = await bodyOf(compatible(), {
      model: "qwen3:8b",
      messages: [userMessage("x")],
      responseFormat: format,
    });
    expect(c.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "place", schema, strict: false },
    });
  });

  it("Chat Completions names an unnamed schema, as the API requires", async () => {
    const c = await bodyOf(compatible(), {
      model: "qwen3:8b",
      messages: [userMessage("x")],
      responseFormat: { type: "json_schema", schema },
    });
    expect(c.body.response_format.json_schema.name).toBe("response");
  });

  it("Gemini takes the schema as it is", async () => {
    const g = await bodyOf(gemini(), {
      model: "gemini-2.5-flash",
      messages: [userMessage("x")],
      responseFormat: format,
    });
    expect(g.body.generationConfig.responseJsonSchema).toEqual(schema);
  });
});

describe("cross-provider histories", () => {
  // Calls another provider made: no Gemini thought signature, no Anthropic thinking block.
  const foreign: Message[] = [
    userMessage("List the files."),
    assistantMessage([
      { kind: "thinking", thinking: { text: "ls it", provider: "openai", id: "rs_1", signature: "enc" } },
      { kind: "tool_call", toolCall: { id: "call_1", name: "shell", arguments: { command: "ls" } } },
      { kind: "tool_call", toolCall: { id: "call_2", name: "shell", arguments: { command: "pwd" } } },
    ]),
    toolResultMessage("call_1", "a.txt", false, { name: "shell" }),
    toolResultMessage("call_2", "/w", false, { name: "shell" }),
  ];

  it("Gemini 3 gets the documented dummy signature on the first call of an unsigned turn", async () => {
    const { body } = await bodyOf(gemini(), { model: "gemini-3-pro-preview", messages: foreign, tools });
    const parts = body.contents[1].parts;
    expect(parts[0].thoughtSignature).toBe("skip_thought_signature_validator");
    expect(parts[1].thoughtSignature).toBeUndefined();
    const older = await bodyOf(gemini(), { model: "gemini-2.5-flash", messages: foreign, tools });
    expect(older.body.contents[1].parts[0].thoughtSignature).toBeUndefined();
  });

  it("Anthropic turns thinking off for a request whose last tool turn has no thinking block", async () => {
    const { body, headers } = await bodyOf(anthropic(), {
      model: "claude-sonnet-4-5",
      messages: foreign,
      tools,
      reasoningEffort: "high",
    });
    expect(body.thinking).toBeUndefined();
    expect(headers["anthropic-beta"]).toBeUndefined();
    // Once the turn is finished, the next one thinks again.
    const later = await bodyOf(anthropic(), {
      model: "claude-sonnet-4-5",
      messages: [...foreign, assistantMessage("Done."), userMessage("Now count them.")],
      tools,
      reasoningEffort: "high",
    });
    expect(later.body.thinking).toEqual({ type: "enabled", budget_tokens: 24_576 });
  });
});

describe("Anthropic sampling parameters", () => {
  it("sends temperature or top_p to Claude 4.5 and later, never both", async () => {
    const ask = (model: string): Request => ({
      model,
      messages: [userMessage("x")],
      temperature: 0.2,
      topP: 0.9,
    });
    const recent = await bodyOf(anthropic(), ask("claude-sonnet-4-5"));
    expect(recent.body).toMatchObject({ temperature: 0.2 });
    expect(recent.body.top_p).toBeUndefined();
    const older = await bodyOf(anthropic(), ask("claude-3-7-sonnet-20250219"));
    expect(older.body).toMatchObject({ temperature: 0.2, top_p: 0.9 });
  });
});

describe("Anthropic betas", () => {
  it("sends interleaved thinking for budget thinking on Claude 4 models before 4.6, not after", async () => {
    const ask = (model: string): Request => ({
      model,
      messages: [userMessage("x")],
      tools,
      reasoningEffort: "low",
    });
    for (const model of ["claude-sonnet-4-5", "claude-opus-4-1-20250805"]) {
      const { headers } = await bodyOf(anthropic(), ask(model));
      expect(headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    }
    const adaptive = await bodyOf(anthropic(), ask("claude-opus-4-6"));
    expect(adaptive.body.thinking).toEqual({ type: "adaptive" });
    expect(adaptive.headers["anthropic-beta"]).toBeUndefined();
    const noThinking = await bodyOf(anthropic(), { ...ask("claude-sonnet-4-5"), reasoningEffort: undefined });
    expect(noThinking.headers["anthropic-beta"]).toBeUndefined();
  });
});

describe("Responses reasoning and caching", () => {
  it("asks for encrypted reasoning on a reasoning model at its default effort, and sends it back", async () => {
    const wire = responseObject(
      "resp_1",
      [
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAA-enc" },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "shell", arguments: "{}" },
      ],
      usage(3, 3),
    );
    server.setHandler([sseReply(wire)]);
    const first = await collect(
      openai().stream({ model: "gpt-5.2", messages: [userMessage("go")], tools, cacheKey: "session-1" }),
    );
    const sent = server.requests[0]!.body;
    expect(sent.include).toEqual(["reasoning.encrypted_content"]);
    expect(sent.reasoning).toBeUndefined();
    expect(sent.prompt_cache_key).toBe("session-1");
    expect(responseToolCalls(first)).toHaveLength(1);
    const { body } = await bodyOf(openai(), {
      model: "gpt-5.2",
      messages: [userMessage("go"), first.message, toolResultMessage("call_1", "done")],
      tools,
      cacheKey: "session-1",
    });
    expect(body.input[1]).toEqual({
      type: "reasoning",
      id: "rs_1",
      encrypted_content: "gAAA-enc",
      summary: [],
    });
    expect(body.prompt_cache_key).toBe("session-1");
  });

  it("does not ask for reasoning from a model that has none", async () => {
    const { body } = await bodyOf(openai(), { model: "gpt-4.1", messages: [userMessage("x")] });
    expect(body.include).toBeUndefined();
  });
});

describe("Chat Completions streaming and reasoning", () => {
  const base = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m" };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });

  it("sets a tool name once when the server repeats it in every chunk", async () => {
    const name = { name: "read_file" };
    server.setHandler([
      {
        kind: "sse",
        frames: [
          chunk({
            role: "assistant",
            tool_calls: [{ index: 0, id: "call_1", type: "function", function: { ...name, arguments: "" } }],
          }),
          chunk({ tool_calls: [{ index: 0, function: { ...name, arguments: '{"path":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { ...name, arguments: '"a.txt"}' } }] }),
          chunk({}, "tool_calls"),
          sse("[DONE]"),
        ],
      },
    ]);
    const res = await collect(compatible().stream({ model: "m", messages: [userMessage("x")], tools }));
    expect(responseToolCalls(res)).toEqual([
      expect.objectContaining({ id: "call_1", name: "read_file", arguments: { path: "a.txt" } }),
    ]);
  });

  it("sends reasoning_content back only when asked, and OpenRouter's reasoning_details always", async () => {
    const details = [
      { type: "reasoning.text", text: "Think", index: 0, format: "anthropic-claude-v1" },
      { type: "reasoning.text", text: " more.", signature: "sig-1", index: 0, format: "anthropic-claude-v1" },
    ];
    server.setHandler([
      {
        kind: "sse",
        frames: [
          chunk({ role: "assistant", reasoning: "Think", reasoning_details: [details[0]] }),
          chunk({ reasoning: " more.", reasoning_details: [details[1]] }),
          chunk({ content: "Done." }),
          chunk({}, "stop"),
          sse("[DONE]"),
        ],
      },
    ]);
    const res = await collect(
      compatible().stream({ model: "anthropic/claude-sonnet-4.5", messages: [userMessage("x")] }),
    );
    const history = [userMessage("x"), res.message, userMessage("again")];
    const { body } = await bodyOf(compatible(), { model: "anthropic/claude-sonnet-4.5", messages: history });
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: "Done.",
      reasoning_details: [
        {
          type: "reasoning.text",
          text: "Think more.",
          signature: "sig-1",
          index: 0,
          format: "anthropic-claude-v1",
        },
      ],
    });
    const asked = await bodyOf(compatible(), {
      model: "deepseek-reasoner",
      messages: history,
      providerOptions: { "openai-compatible": { sendReasoning: true } },
    });
    expect(asked.body.messages[1].reasoning_content).toBe("Think more.");
  });
});
