import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { InvalidRequestError } from "../src/errors.js";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { StreamAccumulator } from "../src/stream/accumulator.js";
import {
  errorBody,
  frames,
  message,
  REDACTED,
  type Reply,
  SIGNATURE,
  sse,
  sseComment,
  startWireServer,
  textMessage,
  textStreamEvents,
  thinkingMessage,
  thinkingStreamEvents,
  toolMessage,
  toolStreamEvents,
  type WireServer,
} from "../src/testing/index.js";
import {
  assistantMessage,
  type Message,
  type Request,
  type Response,
  responseText,
  responseToolCalls,
  type StreamEvent,
  systemMessage,
  toolResultMessage,
  userMessage,
} from "../src/types/index.js";

let server: WireServer;
let adapter: AnthropicAdapter;
beforeAll(async () => {
  server = await startWireServer([]);
  adapter = new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: server.url });
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

const MODEL = "claude-haiku-4-5";
const req = (messages: Message[], extra: Partial<Request> = {}): Request => ({
  model: MODEL,
  messages,
  ...extra,
});
const hi = [userMessage("Hello")];
const reply = (...replies: Reply[]) => server.setHandler(replies);
const last = () => server.requests.at(-1)!;

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** A response without its wire echo, for comparing streamed and completed results. */
const comparable = (r: Response) => ({ ...r, raw: undefined, usage: { ...r.usage, raw: undefined } });

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

describe("complete()", () => {
  it("posts to /v1/messages with the key, version header and a translated body", async () => {
    reply({ kind: "json", body: textMessage, headers: { "anthropic-ratelimit-requests-remaining": "49" } });
    const res = await adapter.complete(
      req([systemMessage("Be brief."), userMessage("Hello")], { temperature: 0.2 }),
    );
    const sent = last();
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe("sk-ant-test");
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(sent.body.model).toBe(MODEL);
    expect(sent.body.max_tokens).toBe(64_000);
    expect(sent.body.temperature).toBe(0.2);
    expect(sent.body.system.map((b: { text: string }) => b.text)).toEqual(["Be brief."]);
    expect(sent.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hello", cache_control: { type: "ephemeral" } }] },
    ]);
    expect(sent.body.stream).toBeUndefined();
    expect(responseText(res)).toBe("Hello, world! How can I help?");
    expect(res.finishReason).toEqual({ reason: "stop", raw: "end_turn" });
    expect(res.usage).toMatchObject({ inputTokens: 25, outputTokens: 12, totalTokens: 37 });
    expect(res.id).toBe("msg_01");
    expect(res.provider).toBe("anthropic");
    expect(res.rateLimit?.requestsRemaining).toBe(49);
    expect(res.raw).toEqual(textMessage);
  });

  it("keeps the SDK's deprecation notices off the console and reports them as warnings", async () => {
    const printed: unknown[][] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void printed.push(args);
    try {
      reply({ kind: "json", body: textMessage }, { kind: "sse", frames: frames(textStreamEvents) });
      const res = await adapter.complete(req(hi, { model: "claude-sonnet-4-5" }));
      expect(res.warnings.map((w) => w.message).join("\n")).toMatch(/claude-sonnet-4-5.*deprecated/);
      await collect(adapter.stream(req(hi, { model: "claude-sonnet-4-5" })));
    } finally {
      console.warn = original;
    }
    expect(printed).toEqual([]);
    expect(console.warn).toBe(original);
  });

  it("uses request.maxTokens, else 4096 for a model outside the table", async () => {
    reply({ kind: "json", body: textMessage }, { kind: "json", body: textMessage });
    await adapter.complete(req(hi, { maxTokens: 321 }));
    expect(last().body.max_tokens).toBe(321);
    await adapter.complete({ model: "some-proxy-model", messages: hi });
    expect(last().body.max_tokens).toBe(4096);
  });

  it("maps stop reasons", async () => {
    const cases: [string, string][] = [
      ["end_turn", "stop"],
      ["stop_sequence", "stop"],
      ["max_tokens", "length"],
      ["tool_use", "tool_calls"],
      ["refusal", "content_filter"],
      ["pause_turn", "other"],
    ];
    reply(
      ...cases.map(([raw]): Reply => ({ kind: "json", body: message([{ type: "text", text: "x" }], raw) })),
    );
    for (const [raw, reason] of cases) {
      const res = await adapter.complete(req(hi));
      expect(res.finishReason).toEqual({ reason, raw });
    }
  });

  it("returns parallel tool calls with parsed and raw arguments", async () => {
    reply({ kind: "json", body: toolMessage });
    const res = await adapter.complete(
      req([userMessage("Weather in Paris and Oslo?")], { tools: [weatherTool] }),
    );
    expect(res.finishReason.reason).toBe("tool_calls");
    expect(responseToolCalls(res)).toEqual([
      {
        id: "toolu_01A",
        name: "get_weather",
        arguments: { city: "Paris", unit: "c" },
        rawArguments: '{"city":"Paris","unit":"c"}',
      },
      {
        id: "toolu_01B",
        name: "get_weather",
        arguments: { city: "Oslo", unit: "c" },
        rawArguments: '{"city":"Oslo","unit":"c"}',
      },
    ]);
    expect(last().body.tools).toEqual([
      {
        name: "get_weather",
        description: "Current weather for a city",
        input_schema: weatherTool.parameters,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(last().body.tool_choice).toBeUndefined();
  });

  it("reports cache reads and writes, counting them in inputTokens", async () => {
    reply({
      kind: "json",
      body: message([{ type: "text", text: "ok" }], "end_turn", {
        input_tokens: 50,
        cache_read_input_tokens: 2000,
        cache_creation_input_tokens: 300,
        output_tokens: 7,
      }),
    });
    const res = await adapter.complete(req(hi));
    expect(res.usage).toMatchObject({
      inputTokens: 2350,
      outputTokens: 7,
      totalTokens: 2357,
      cacheReadTokens: 2000,
      cacheWriteTokens: 300,
    });
    expect(res.usage.reasoningTokens).toBeUndefined();
  });

  it("returns thinking with its signature and redacted thinking verbatim, estimating reasoning tokens", async () => {
    reply({ kind: "json", body: thinkingMessage });
    const res = await adapter.complete(req(hi, { reasoningEffort: "low" }));
    expect(res.message.content).toEqual([
      {
        kind: "thinking",
        thinking: {
          text: "The user wants 27 * 453.\n27 * 453 = 12231.",
          signature: SIGNATURE,
          provider: "anthropic",
        },
      },
      { kind: "redacted_thinking", data: REDACTED, provider: "anthropic" },
      { kind: "text", text: "27 * 453 = 12,231." },
    ]);
    const thinkingChars = "The user wants 27 * 453.\n27 * 453 = 12231.".length;
    expect(res.usage.reasoningTokens).toBe(Math.ceil(thinkingChars / 4));
  });
});

describe("request translation", () => {
  it("merges roles into strict alternation and pairs tool_use with tool_result", async () => {
    reply({ kind: "json", body: toolMessage }, { kind: "json", body: textMessage });
    const history: Message[] = [systemMessage("You are terse."), userMessage("Weather in Paris and Oslo?")];
    const first = await adapter.complete(req(history, { tools: [weatherTool] }));
    const [a, b] = responseToolCalls(first);
    history.push(
      first.message,
      toolResultMessage(a!.id, "18°C and sunny"),
      toolResultMessage(b!.id, { error: "station offline" }, true),
      userMessage("Also, be brief."),
    );
    await adapter.complete(req(history, { tools: [weatherTool] }));
    const sent = last().body;
    expect(sent.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    const assistant = sent.messages[1].content;
    expect(assistant).toEqual([
      { type: "text", text: "Let me check both cities." },
      { type: "tool_use", id: "toolu_01A", name: "get_weather", input: { city: "Paris", unit: "c" } },
      { type: "tool_use", id: "toolu_01B", name: "get_weather", input: { city: "Oslo", unit: "c" } },
    ]);
    const results = sent.messages[2].content;
    expect(results[0]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_01A",
      content: "18°C and sunny",
      is_error: false,
    });
    expect(results[1]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_01B",
      content: '{"error":"station offline"}',
      is_error: true,
    });
    expect(results[2]).toMatchObject({ type: "text", text: "Also, be brief." });
  });

  it("sends system and developer text as system blocks, in order", async () => {
    reply({ kind: "json", body: textMessage });
    await adapter.complete(
      req(
        [
          systemMessage("One."),
          userMessage("Hi"),
          { role: "developer", content: [{ kind: "text", text: "Two." }] },
        ],
        {
          providerOptions: { anthropic: { autoCache: false } },
        },
      ),
    );
    expect(last().body.system).toEqual([
      { type: "text", text: "One." },
      { type: "text", text: "Two." },
    ]);
    expect(last().body.messages).toHaveLength(1);
  });

  it("round-trips thinking signatures and redacted thinking byte for byte, dropping other providers' thinking", async () => {
    reply({ kind: "sse", frames: frames(thinkingStreamEvents) }, { kind: "json", body: textMessage });
    const events = await collect(adapter.stream(req([userMessage("27 * 453?")], { reasoningEffort: "low" })));
    const finish = events.at(-1);
    if (finish?.type !== "finish") throw new Error("no finish event");
    const foreign: Message = assistantMessage([
      { kind: "thinking", thinking: { text: "openai reasoning", signature: "enc", provider: "openai" } },
      { kind: "text", text: "earlier" },
    ]);
    await adapter.complete(
      req([
        userMessage("first"),
        foreign,
        userMessage("27 * 453?"),
        finish.response.message,
        userMessage("Thanks"),
      ]),
    );
    const sent = last().body.messages;
    expect(sent[1].content).toEqual([{ type: "text", text: "earlier" }]);
    expect(sent[3].content).toEqual([
      { type: "thinking", thinking: "The user wants 27 * 453.\n27 * 453 = 12231.", signature: SIGNATURE },
      { type: "redacted_thinking", data: REDACTED },
      { type: "text", text: "27 * 453 = 12,231." },
    ]);
  });

  it("maps tool choices, and omits tools entirely for none", async () => {
    const choices: [Request["toolChoice"], unknown][] = [
      [{ mode: "auto" }, { type: "auto" }],
      [{ mode: "required" }, { type: "any" }],
      [
        { mode: "named", toolName: "get_weather" },
        { type: "tool", name: "get_weather" },
      ],
    ];
    reply(...choices.map((): Reply => ({ kind: "json", body: toolMessage })), {
      kind: "json",
      body: textMessage,
    });
    for (const [toolChoice, wire] of choices) {
      await adapter.complete(req(hi, { tools: [weatherTool], toolChoice }));
      expect(last().body.tool_choice).toEqual(wire);
      expect(last().body.tools).toHaveLength(1);
    }
    await adapter.complete(req(hi, { tools: [weatherTool], toolChoice: { mode: "none" } }));
    expect(last().body.tools).toBeUndefined();
    expect(last().body.tool_choice).toBeUndefined();
  });

  it("forces a named tool for structured output and returns its input as arguments", async () => {
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };
    reply({
      kind: "json",
      body: message(
        [{ type: "tool_use", id: "toolu_9", name: "respond", input: { answer: 42 } }],
        "tool_use",
      ),
    });
    const res = await adapter.complete(
      req(hi, {
        tools: [{ name: "respond", description: "Give the answer", parameters: schema }],
        toolChoice: { mode: "named", toolName: "respond" },
        reasoningEffort: "high",
      }),
    );
    expect(last().body.tool_choice).toEqual({ type: "tool", name: "respond" });
    // The API refuses extended thinking together with a forced tool.
    expect(last().body.thinking).toBeUndefined();
    expect(responseToolCalls(res)[0]?.arguments).toEqual({ answer: 42 });
  });

  it("turns reasoningEffort into a thinking budget, raising max_tokens and dropping temperature", async () => {
    reply({ kind: "json", body: textMessage }, { kind: "json", body: textMessage });
    await adapter.complete(
      req(hi, { reasoningEffort: "medium", maxTokens: 1000, temperature: 0.5, topP: 0.5 }),
    );
    expect(last().body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(last().body.max_tokens).toBe(9192);
    expect(last().body.temperature).toBeUndefined();
    expect(last().body.top_p).toBeUndefined();
    await adapter.complete(req(hi, { reasoningEffort: "high" }));
    expect(last().body.thinking).toEqual({ type: "enabled", budget_tokens: 24_576 });
    expect(last().body.max_tokens).toBe(64_000);
  });

  it("uses adaptive thinking with an effort on Claude 4.6 and later, budgets before", async () => {
    const cases: [string, Request["reasoningEffort"], unknown, unknown][] = [
      ["claude-opus-4-6", "medium", { type: "adaptive" }, { effort: "medium" }],
      ["claude-sonnet-4-6", "minimal", { type: "adaptive" }, { effort: "low" }],
      ["claude-opus-4-7", "xhigh", { type: "adaptive" }, { effort: "max" }],
      ["claude-sonnet-5", "high", { type: "adaptive" }, { effort: "high" }],
      ["claude-mythos-preview", "low", { type: "adaptive" }, { effort: "low" }],
      ["claude-sonnet-4-5-20250929", "low", { type: "enabled", budget_tokens: 2048 }, undefined],
      ["claude-3-7-sonnet-20250219", "low", { type: "enabled", budget_tokens: 2048 }, undefined],
      ["some-proxy-model", "low", { type: "enabled", budget_tokens: 2048 }, undefined],
    ];
    reply(...cases.map((): Reply => ({ kind: "json", body: textMessage })));
    for (const [model, effort, thinking, outputConfig] of cases) {
      await adapter.complete({
        model,
        messages: hi,
        reasoningEffort: effort,
        maxTokens: 4000,
        temperature: 1,
      });
      expect([model, last().body.thinking, last().body.output_config]).toEqual([
        model,
        thinking,
        outputConfig,
      ]);
      // An adaptive model's max_tokens is left as asked: there is no budget to fit under it.
      if (outputConfig !== undefined) expect(last().body.max_tokens).toBe(4000);
      expect(last().body.temperature).toBeUndefined();
    }
  });

  it("passes stop sequences, top_p, metadata.user_id and extra provider options", async () => {
    reply({ kind: "json", body: textMessage });
    await adapter.complete(
      req(hi, {
        stopSequences: ["END"],
        topP: 0.9,
        metadata: { user_id: "u-1", other: "dropped" },
        providerOptions: { anthropic: { top_k: 5 }, openai: { store: true } },
      }),
    );
    const body = last().body;
    expect(body.stop_sequences).toEqual(["END"]);
    expect(body.top_p).toBe(0.9);
    expect(body.metadata).toEqual({ user_id: "u-1" });
    expect(body.top_k).toBe(5);
    expect(body.store).toBeUndefined();
  });

  it("sends images by url, base64 and local path, and PDFs as documents", async () => {
    const dir = await mkdtemp(join(tmpdir(), "anthropic-media-"));
    try {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
      const pdf = Buffer.from("%PDF-1.4 tiny");
      await writeFile(join(dir, "shot.png"), png);
      await writeFile(join(dir, "spec.pdf"), pdf);
      reply({ kind: "json", body: textMessage });
      await adapter.complete(
        req([
          userMessage([
            { kind: "text", text: "Compare" },
            { kind: "image", image: { url: "https://example.com/cat.jpg" } },
            { kind: "image", image: { data: new Uint8Array([1, 2, 3]), mediaType: "image/jpeg" } },
            { kind: "image", image: { path: join(dir, "shot.png") } },
            { kind: "document", document: { path: join(dir, "spec.pdf"), fileName: "spec.pdf" } },
          ]),
        ]),
      );
      const content = last().body.messages[0].content;
      expect(content[1]).toEqual({
        type: "image",
        source: { type: "url", url: "https://example.com/cat.jpg" },
      });
      expect(content[2]).toEqual({
        type: "image",
        source: { type: "base64", media_type: "image/jpeg", data: Buffer.from([1, 2, 3]).toString("base64") },
      });
      expect(content[3]).toEqual({
        type: "image",
        source: { type: "base64", media_type: "image/png", data: png.toString("base64") },
      });
      expect(content[4]).toMatchObject({
        type: "document",
        title: "spec.pdf",
        source: { type: "base64", media_type: "application/pdf", data: pdf.toString("base64") },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sends an image tool result as an image block inside tool_result content", async () => {
    reply({ kind: "json", body: textMessage });
    await adapter.complete(
      req([
        userMessage("Screenshot please"),
        assistantMessage([
          { kind: "tool_call", toolCall: { id: "toolu_s", name: "screenshot", arguments: {} } },
        ]),
        toolResultMessage("toolu_s", "captured", false, { image: { data: "aGk=", mediaType: "image/png" } }),
      ]),
    );
    expect(last().body.messages[2].content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_s",
      content: [
        { type: "text", text: "captured" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "aGk=" } },
      ],
    });
  });

  it("rejects audio with a clear InvalidRequestError before sending anything", async () => {
    const before = server.requests.length;
    const err = await adapter
      .complete(req([userMessage([{ kind: "audio", audio: { data: "AAAA", mediaType: "audio/wav" } }])]))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as Error).message).toMatch(/audio/);
    expect(server.requests.length).toBe(before);
  });
});

describe("prompt caching", () => {
  const conversation = (): Message[] => [
    systemMessage("System prompt."),
    userMessage("turn 1"),
    assistantMessage("answer 1"),
    userMessage("turn 2"),
    assistantMessage("answer 2"),
    userMessage("turn 3"),
  ];

  it("marks the last tool, the last system block and the two latest user turns, without a beta header", async () => {
    reply({ kind: "json", body: textMessage });
    await adapter.complete(
      req(conversation(), { tools: [weatherTool, { ...weatherTool, name: "get_time" }] }),
    );
    const body = last().body;
    const marked = (b: { cache_control?: unknown }) => b.cache_control !== undefined;
    expect(body.tools.map(marked)).toEqual([false, true]);
    expect(body.system.map(marked)).toEqual([true]);
    expect(
      body.messages.map((m: { content: { cache_control?: unknown }[] }) => m.content.some(marked)),
    ).toEqual([false, false, true, false, true]);
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(4);
    // Prompt caching is generally available; its deprecated beta header is not sent.
    expect(last().headers["anthropic-beta"]).toBeUndefined();
  });

  it("puts no cache_control anywhere and no caching header when autoCache is false", async () => {
    reply({ kind: "json", body: textMessage });
    await adapter.complete(
      req(conversation(), { tools: [weatherTool], providerOptions: { anthropic: { autoCache: false } } }),
    );
    expect(JSON.stringify(last().body)).not.toContain("cache_control");
    expect(JSON.stringify(last().body)).not.toContain("autoCache");
    expect(last().headers["anthropic-beta"]).toBeUndefined();
  });

  it("sends the user's beta headers, without duplicates", async () => {
    reply({ kind: "json", body: textMessage }, { kind: "json", body: textMessage });
    await adapter.complete(
      req(hi, {
        providerOptions: {
          anthropic: {
            betaHeaders: [
              "interleaved-thinking-2025-05-14",
              "prompt-caching-2024-07-31",
              "context-1m-2025-08-07",
            ],
          },
        },
      }),
    );
    expect(last().headers["anthropic-beta"]).toBe(
      "interleaved-thinking-2025-05-14,prompt-caching-2024-07-31,context-1m-2025-08-07",
    );
    expect(JSON.stringify(last().body)).not.toContain("betaHeaders");
    await adapter.complete(
      req(hi, {
        providerOptions: {
          anthropic: { beta_headers: ["token-efficient-tools-2025-02-19"], auto_cache: false },
        },
      }),
    );
    expect(last().headers["anthropic-beta"]).toBe("token-efficient-tools-2025-02-19");
  });
});

describe("stream()", () => {
  it("streams text split across random TCP chunks with pings; deltas concatenate to the final text", async () => {
    reply({ kind: "sse", frames: frames(textStreamEvents), chunking: { mode: "random", max: 7, seed: 3 } });
    const events = await collect(adapter.stream(req(hi)));
    expect(last().body.stream).toBe(true);
    expect(events[0]).toEqual({ type: "stream_start", id: "msg_01", model: "claude-sonnet-4-5-20250929" });
    expect(events.map((e) => e.type)).toEqual([
      "stream_start",
      "text_start",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_end",
      "finish",
    ]);
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
    const finish = events.at(-1);
    if (finish?.type !== "finish") throw new Error("no finish event");
    expect(deltas).toBe(responseText(finish.response));
    expect(finish.usage).toMatchObject({ inputTokens: 25, outputTokens: 12, totalTokens: 37 });
  });

  it.each([
    ["text", textStreamEvents, textMessage],
    ["parallel tool calls", toolStreamEvents, toolMessage],
    ["thinking with cache reads", thinkingStreamEvents, thinkingMessage],
  ])("accumulates %s to the same response complete() returns", async (_name, streamEvents, completeBody) => {
    reply({ kind: "sse", frames: frames(streamEvents) }, { kind: "json", body: completeBody });
    const acc = new StreamAccumulator("anthropic");
    for await (const e of adapter.stream(req(hi))) acc.process(e);
    const completed = await adapter.complete(req(hi));
    expect(comparable(acc.response())).toEqual(comparable(completed));
  });

  it("parses events whose JSON spans several data: lines, with comments between frames", async () => {
    const split = toolStreamEvents.flatMap((e) => [
      sse(e, { event: String(e.type), multiline: true }),
      sseComment("keep-alive"),
    ]);
    expect(split[0]!.split("\n").filter((l) => l.startsWith("data:")).length).toBeGreaterThan(3);
    reply({ kind: "sse", frames: split, chunking: { mode: "random", max: 13, seed: 11 } });
    const acc = new StreamAccumulator("anthropic");
    for await (const e of adapter.stream(req(hi, { tools: [weatherTool] }))) acc.process(e);
    const res = acc.response();
    expect(responseText(res)).toBe("Let me check both cities.");
    expect(responseToolCalls(res).map((c) => c.arguments)).toEqual([
      { city: "Paris", unit: "c" },
      { city: "Oslo", unit: "c" },
    ]);
    expect(res.usage).toMatchObject({ inputTokens: 25, outputTokens: 60 });
  });

  it("streams tool input as input_json_delta and ends each call with parsed arguments", async () => {
    reply({ kind: "sse", frames: frames(toolStreamEvents) });
    const events = await collect(adapter.stream(req(hi, { tools: [weatherTool] })));
    const first = events.filter((e) => "id" in e && e.id === "toolu_01A");
    expect(first).toEqual([
      { type: "tool_call_start", id: "toolu_01A", name: "get_weather" },
      { type: "tool_call_delta", id: "toolu_01A", argumentsDelta: '{"city":"Pa' },
      { type: "tool_call_delta", id: "toolu_01A", argumentsDelta: 'ris","unit":"c"}' },
    ]);
    const ends = events.flatMap((e) => (e.type === "tool_call_end" ? [e.toolCall] : []));
    expect(ends).toEqual([
      {
        id: "toolu_01A",
        name: "get_weather",
        arguments: { city: "Paris", unit: "c" },
        rawArguments: '{"city":"Paris","unit":"c"}',
      },
      {
        id: "toolu_01B",
        name: "get_weather",
        arguments: { city: "Oslo", unit: "c" },
        rawArguments: '{"city":"Oslo","unit":"c"}',
      },
    ]);
    const finish = events.at(-1);
    expect(finish?.type === "finish" && finish.finishReason).toEqual({
      reason: "tool_calls",
      raw: "tool_use",
    });
  });

  it("streams thinking as reasoning events ending with the signed block, and redacted thinking", async () => {
    reply({ kind: "sse", frames: frames(thinkingStreamEvents) });
    const events = await collect(adapter.stream(req(hi, { reasoningEffort: "low" })));
    const reasoning = events.filter((e) => e.type.startsWith("reasoning") || e.type === "redacted_reasoning");
    expect(reasoning).toEqual([
      { type: "reasoning_start", reasoningId: "0" },
      { type: "reasoning_delta", reasoningId: "0", delta: "The user wants 27 * 453.\n" },
      { type: "reasoning_delta", reasoningId: "0", delta: "27 * 453 = 12231." },
      {
        type: "reasoning_end",
        reasoningId: "0",
        thinking: {
          text: "The user wants 27 * 453.\n27 * 453 = 12231.",
          signature: SIGNATURE,
          provider: "anthropic",
        },
      },
      { type: "redacted_reasoning", data: REDACTED },
    ]);
    const finish = events.at(-1);
    if (finish?.type !== "finish") throw new Error("no finish event");
    expect(finish.usage).toMatchObject({ cacheReadTokens: 1800, cacheWriteTokens: 0, inputTokens: 1825 });
  });

  it("fails with an error body mapped like complete() when the stream request is rejected", async () => {
    reply({
      kind: "json",
      status: 400,
      body: errorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
    });
    const err = await collect(adapter.stream(req(hi))).catch((e: unknown) => e);
    expect((err as Error).name).toBe("ContextLengthError");
  });
});
