import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  AccessDeniedError,
  AuthenticationError,
  ConfigurationError,
  ContextLengthError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  StreamError,
} from "../src/errors.js";
import { OpenAICompatibleAdapter } from "../src/providers/openai-compatible/index.js";
import { StreamAccumulator } from "../src/stream/accumulator.js";
import {
  type Completion,
  chatUsage,
  chunkFrames,
  chunkReply,
  completionBody,
  type Reply,
  sse,
  startWireServer,
  type WireServer,
} from "../src/testing/index.js";
import {
  type Request,
  type Response,
  responseReasoning,
  responseText,
  responseToolCalls,
  type StreamEvent,
  systemMessage,
  toolResultMessage,
  userMessage,
} from "../src/types/index.js";

let server: WireServer;
beforeAll(async () => {
  // keep_alive is Ollama's extension, sent through providerOptions by one test on purpose.
  server = await startWireServer([], { allowFields: ["keep_alive"] });
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

const adapter = (extra: ConstructorParameters<typeof OpenAICompatibleAdapter>[0] = {}) =>
  new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, env: {}, ...extra });

const ask = (text: string, extra: Partial<Request> = {}): Request => ({
  model: "qwen3:8b",
  messages: [systemMessage("Be brief."), userMessage(text)],
  ...extra,
});

const tools = [
  {
    name: "shell",
    description: "Run a command",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
];

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

const finishOf = (events: StreamEvent[]): Response => {
  const last = events.at(-1);
  if (last?.type !== "finish") throw new Error(`stream did not finish: ${JSON.stringify(last)}`);
  return last.response;
};

const withoutRaw = ({ raw: _raw, ...rest }: Response) => rest;

async function bothWays(c: Completion, request: Request) {
  server.setHandler([{ kind: "json", body: completionBody(c) }, chunkReply(c)]);
  const a = adapter();
  const completed = await a.complete(request);
  const events = await collect(a.stream(request));
  return { completed, events, streamed: finishOf(events) };
}

describe("OpenAICompatibleAdapter: text", () => {
  it("completes text and translates the request", async () => {
    const c: Completion = { id: "chatcmpl-1", content: "Hi!", finish: "stop", usage: chatUsage(10, 2) };
    server.setHandler([
      { kind: "json", body: completionBody(c), headers: { "x-ratelimit-remaining-requests": "3" } },
    ]);
    const res = await adapter().complete(
      ask("hello", { temperature: 0.5, topP: 0.9, maxTokens: 64, stopSequences: ["END"] }),
    );
    expect(responseText(res)).toBe("Hi!");
    expect(res).toMatchObject({ id: "chatcmpl-1", model: "qwen3:8b", provider: "openai-compatible" });
    expect(res.finishReason).toEqual({ reason: "stop", raw: "stop" });
    expect(res.usage).toMatchObject({ inputTokens: 10, outputTokens: 2, totalTokens: 12 });
    expect(res.usage.reasoningTokens).toBeUndefined();
    expect(res.rateLimit).toEqual({ requestsRemaining: 3 });
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.body).toMatchObject({
      model: "qwen3:8b",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello" },
      ],
      temperature: 0.5,
      top_p: 0.9,
      max_tokens: 64,
      stop: ["END"],
    });
    expect(req.body.stream).toBeUndefined();
  });

  it("streams text (deltas concatenate) and ends with the same response complete() gives", async () => {
    const c: Completion = {
      id: "chatcmpl-2",
      content: "Streaming over a compatible server.",
      finish: "stop",
      usage: chatUsage(7, 6),
    };
    const { completed, events, streamed } = await bothWays(c, ask("stream"));
    expect(events[0]).toEqual({ type: "stream_start", id: "chatcmpl-2", model: "qwen3:8b" });
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Streaming over a compatible server.");
    expect(withoutRaw(streamed)).toEqual(withoutRaw(completed));
    const acc = new StreamAccumulator("openai-compatible");
    for (const e of events) acc.process(e);
    expect(withoutRaw(acc.response())).toEqual(withoutRaw(completed));
    expect(streamed.usage).toMatchObject({ inputTokens: 7, outputTokens: 6 });
    expect(server.requests[1]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("parses chunks whose JSON spans several data: lines, then the usage chunk and [DONE]", async () => {
    const c: Completion = {
      id: "ml",
      content: "Split over lines.",
      reasoning: "Think first.",
      calls: [{ id: "call_m", name: "shell", args: '{"command":"ls"}' }],
      finish: "tool_calls",
      usage: chatUsage(11, 7, { cached: 4 }),
    };
    const frames = chunkFrames(c).map((frame) => {
      const json = /^data: (\{.*\})\n\n$/s.exec(frame)?.[1];
      return json === undefined ? frame : sse(JSON.parse(json), { multiline: true });
    });
    expect(frames.at(-1)).toBe("data: [DONE]\n\n");
    server.setHandler([{ kind: "sse", frames, chunking: { mode: "random", max: 29, seed: 5 } }]);
    const res = finishOf(await collect(adapter().stream(ask("x", { tools }))));
    expect(responseText(res)).toBe("Split over lines.");
    expect(responseReasoning(res)).toBe("Think first.");
    expect(responseToolCalls(res).map((t) => [t.id, t.arguments])).toEqual([["call_m", { command: "ls" }]]);
    expect(res.usage).toMatchObject({ inputTokens: 11, outputTokens: 7, cacheReadTokens: 4 });
  });

  it("throws StreamError when the stream ends without a finish_reason", async () => {
    const c: Completion = { id: "x", content: "never finished", finish: "stop" };
    server.setHandler([{ kind: "sse", frames: chunkFrames(c, { finish: false }) }]);
    await expect(collect(adapter().stream(ask("x")))).rejects.toBeInstanceOf(StreamError);
  });

  it("finishes on a stream that closes after finish_reason without [DONE]", async () => {
    const c: Completion = { id: "nd", content: "no done marker", finish: "length" };
    server.setHandler([{ kind: "sse", frames: chunkFrames(c, { done: false }) }]);
    const res = finishOf(await collect(adapter().stream(ask("x"))));
    expect(res.finishReason).toEqual({ reason: "length", raw: "length" });
  });
});

describe("OpenAICompatibleAdapter: tools", () => {
  it("translates tools and a single call, streamed and completed alike", async () => {
    const c: Completion = {
      id: "t1",
      calls: [{ id: "call_abc", name: "shell", args: '{"command":"ls -la"}' }],
      finish: "tool_calls",
      usage: chatUsage(30, 9),
    };
    const { completed, streamed, events } = await bothWays(
      c,
      ask("list", { tools, toolChoice: { mode: "named", toolName: "shell" } }),
    );
    expect(responseToolCalls(completed)).toEqual([
      {
        id: "call_abc",
        name: "shell",
        arguments: { command: "ls -la" },
        rawArguments: '{"command":"ls -la"}',
        type: "function",
      },
    ]);
    expect(completed.finishReason.reason).toBe("tool_calls");
    expect(withoutRaw(streamed)).toEqual(withoutRaw(completed));
    const argDeltas = events.flatMap((e) => (e.type === "tool_call_delta" ? [e.argumentsDelta] : []));
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(argDeltas.join("")).toBe('{"command":"ls -la"}');
    const body = server.requests[0]!.body;
    expect(body.tools).toEqual([{ type: "function", function: tools[0] }]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "shell" } });
  });

  it("keys parallel call deltas by index", async () => {
    const c: Completion = {
      id: "t2",
      content: "Running both.",
      calls: [
        { id: "call_1", name: "shell", args: '{"command":"pwd"}' },
        { id: "call_2", name: "shell", args: '{"command":"whoami"}' },
      ],
      finish: "tool_calls",
    };
    const { completed, streamed } = await bothWays(c, ask("both", { tools }));
    expect(responseToolCalls(streamed).map((t) => [t.id, t.arguments])).toEqual([
      ["call_1", { command: "pwd" }],
      ["call_2", { command: "whoami" }],
    ]);
    expect(responseText(streamed)).toBe("Running both.");
    expect(withoutRaw(streamed)).toEqual(withoutRaw(completed));
  });

  it("separates calls whose deltas carry no index by their ids", async () => {
    const base = { id: "ni", object: "chat.completion.chunk", created: 1, model: "m" };
    const chunk = (delta: unknown, finish: string | null = null) =>
      sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
    server.setHandler([
      {
        kind: "sse",
        frames: [
          chunk({
            role: "assistant",
            tool_calls: [
              { id: "a", type: "function", function: { name: "shell", arguments: '{"command":' } },
            ],
          }),
          chunk({ tool_calls: [{ function: { arguments: '"ls"}' } }] }),
          chunk({
            tool_calls: [
              { id: "b", type: "function", function: { name: "shell", arguments: '{"command":"pwd"}' } },
            ],
          }),
          chunk({}, "tool_calls"),
          sse("[DONE]"),
        ],
      },
    ]);
    const res = finishOf(await collect(adapter().stream(ask("x", { tools }))));
    expect(responseToolCalls(res).map((c) => [c.id, c.arguments])).toEqual([
      ["a", { command: "ls" }],
      ["b", { command: "pwd" }],
    ]);
  });

  it("treats a 'stop' that carries tool calls as tool_calls", async () => {
    const c: Completion = { id: "t3", calls: [{ id: "c", name: "shell", args: "{}" }], finish: "stop" };
    const { completed, streamed } = await bothWays(c, ask("x", { tools }));
    expect(completed.finishReason).toEqual({ reason: "tool_calls", raw: "stop" });
    expect(streamed.finishReason).toEqual({ reason: "tool_calls", raw: "stop" });
  });

  it("sends the assistant's calls and the tool results back as tool messages", async () => {
    const first: Completion = {
      id: "s1",
      reasoning: "I should run it.",
      calls: [
        { id: "call_Q", name: "shell", args: '{"command":"date"}' },
        { id: "call_R", name: "shell", args: '{"command":"false"}' },
      ],
      finish: "tool_calls",
    };
    const second: Completion = { id: "s2", content: "It is Monday.", finish: "stop" };
    server.setHandler([
      { kind: "json", body: completionBody(first) },
      chunkReply(second),
      chunkReply(second),
    ]);
    const a = adapter();
    const step1 = await a.complete(ask("date?", { tools }));
    const history = [
      ...ask("date?").messages,
      step1.message,
      toolResultMessage("call_Q", "Mon", false),
      toolResultMessage("call_R", "boom", true),
    ];
    const step2 = finishOf(
      await collect(
        a.stream({
          model: "qwen3:8b",
          messages: history,
          tools,
          providerOptions: { "openai-compatible": { sendReasoning: true } },
        }),
      ),
    );
    expect(responseText(step2)).toBe("It is Monday.");
    expect(server.requests[1]!.body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        reasoning_content: "I should run it.",
        tool_calls: [
          { id: "call_Q", type: "function", function: { name: "shell", arguments: '{"command":"date"}' } },
          { id: "call_R", type: "function", function: { name: "shell", arguments: '{"command":"false"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_Q", content: "Mon" },
      { role: "tool", tool_call_id: "call_R", content: "Error: boom" },
    ]);
    await collect(
      a.stream({
        model: "qwen3:8b",
        messages: history,
        providerOptions: { "openai-compatible": { keep_alive: "5m" } },
      }),
    );
    const third = server.requests[2]!.body;
    expect(third.messages[2].reasoning_content).toBeUndefined();
    expect(third.keep_alive).toBe("5m");
    expect(third.sendReasoning).toBeUndefined();
  });
});

describe("OpenAICompatibleAdapter: reasoning, usage, content", () => {
  for (const field of ["reasoning_content", "reasoning"] as const) {
    it(`maps ${field} to thinking, with reasoning and cached token counts`, async () => {
      const c: Completion = {
        id: "r1",
        reasoning: "Let me think about this carefully.",
        reasoningField: field,
        content: "Answer: 4",
        finish: "stop",
        usage: chatUsage(50, 40, { cached: 32, reasoning: 30 }),
      };
      const { completed, streamed, events } = await bothWays(c, ask("2+2", { reasoningEffort: "low" }));
      expect(responseReasoning(completed)).toBe("Let me think about this carefully.");
      expect(completed.usage).toMatchObject({ reasoningTokens: 30, cacheReadTokens: 32 });
      expect(withoutRaw(streamed)).toEqual(withoutRaw(completed));
      const types = events.map((e) => e.type);
      expect(types.indexOf("reasoning_end")).toBeLessThan(types.indexOf("text_start"));
      expect(server.requests[0]!.body.reasoning_effort).toBe("low");
    });
  }

  it("sends images as image_url parts (URL, bytes, local file)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "compat-img-"));
    try {
      const bytes = Buffer.from([1, 2, 3, 4, 5]);
      const file = join(dir, "pic.webp");
      await writeFile(file, bytes);
      server.setHandler([{ kind: "json", body: completionBody({ id: "i", content: "ok", finish: "stop" }) }]);
      await adapter().complete({
        model: "llava",
        messages: [
          userMessage([
            { kind: "text", text: "describe" },
            { kind: "image", image: { url: "https://example.com/a.png" } },
            { kind: "image", image: { data: bytes.toString("base64"), mediaType: "image/gif" } },
            { kind: "image", image: { path: file, detail: "high" } },
          ]),
        ],
      });
      expect(server.requests[0]!.body.messages[0].content).toEqual([
        { type: "text", text: "describe" },
        { type: "image_url", image_url: { url: "https://example.com/a.png" } },
        { type: "image_url", image_url: { url: `data:image/gif;base64,${bytes.toString("base64")}` } },
        {
          type: "image_url",
          image_url: { url: `data:image/webp;base64,${bytes.toString("base64")}`, detail: "high" },
        },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("requests structured output with response_format", async () => {
    const schema = { type: "object", properties: { ok: { type: "boolean" } } };
    server.setHandler([
      { kind: "json", body: completionBody({ id: "j", content: '{"ok":true}', finish: "stop" }) },
      { kind: "json", body: completionBody({ id: "j", content: "{}", finish: "stop" }) },
    ]);
    const res = await adapter().complete(
      ask("json", { responseFormat: { type: "json_schema", schema, name: "Ok" } }),
    );
    expect(JSON.parse(responseText(res))).toEqual({ ok: true });
    expect(server.requests[0]!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "Ok", schema, strict: false },
    });
    await adapter().complete(ask("json", { responseFormat: { type: "json" } }));
    expect(server.requests[1]!.body.response_format).toEqual({ type: "json_object" });
  });
});

describe("OpenAICompatibleAdapter: configuration and headers", () => {
  it("needs a base URL, reported at request time with the variable's name", async () => {
    const a = new OpenAICompatibleAdapter({ env: {} });
    const err = await a.complete(ask("x")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toContain("OPENAI_COMPATIBLE_BASE_URL");
  });

  it("reads URL and key from the environment, sends a placeholder key without one, and custom headers", async () => {
    const ok = { kind: "json", body: completionBody({ id: "h", content: "ok", finish: "stop" }) } as const;
    server.setHandler([ok, ok]);
    await new OpenAICompatibleAdapter({
      env: { OPENAI_COMPATIBLE_BASE_URL: `${server.url}/v1`, OPENAI_COMPATIBLE_API_KEY: "sk-or-1" },
      defaultHeaders: { "HTTP-Referer": "https://example.com", "X-Title": "attractor" },
    }).complete(ask("x"));
    await adapter().complete(ask("x"));
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-or-1");
    expect(server.requests[0]!.headers["http-referer"]).toBe("https://example.com");
    expect(server.requests[0]!.headers["x-title"]).toBe("attractor");
    expect(server.requests[1]!.headers.authorization).toMatch(/^Bearer \S+$/);
  });
});

describe("OpenAICompatibleAdapter: errors", () => {
  const cases: [number, new (...args: never[]) => Error, boolean][] = [
    [400, InvalidRequestError, false],
    [401, AuthenticationError, false],
    [403, AccessDeniedError, false],
    [404, NotFoundError, false],
    [408, RequestTimeoutError, false],
    [413, ContextLengthError, false],
    [422, InvalidRequestError, false],
    [429, RateLimitError, true],
    [500, ServerError, true],
    [503, ServerError, true],
  ];
  for (const [status, cls, retryable] of cases) {
    it(`maps HTTP ${status} to ${cls.name}`, async () => {
      const body = { error: { message: `compat ${status} happened`, type: "server_said", code: null } };
      const reply: Reply = {
        kind: "json",
        status,
        body,
        ...(status === 429 && { headers: { "retry-after": "7" } }),
      };
      server.setHandler([reply, reply]);
      const a = adapter();
      for (const run of [() => a.complete(ask("x")), () => collect(a.stream(ask("x")))]) {
        const err = (await run().catch((e: unknown) => e)) as Record<string, unknown>;
        expect(err).toBeInstanceOf(cls);
        expect(err.retryable).toBe(retryable);
        if (status !== 408)
          expect(err).toMatchObject({ statusCode: status, raw: body, provider: "openai-compatible" });
        if (status === 429) expect(err.retryAfter).toBe(7);
      }
    });
  }

  it("keeps bodies of other shapes (vLLM's {detail}) as raw", async () => {
    const body = { object: "error", detail: "model 'nope' not loaded" };
    server.setHandler([{ kind: "json", status: 404, body }]);
    const err = await adapter()
      .complete(ask("x"))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ raw: body });
  });

  it("throws the mapped error for an error chunk mid-stream", async () => {
    server.setHandler([
      {
        kind: "sse",
        frames: [
          ...chunkFrames({ id: "e", content: "partial", finish: "stop" }).slice(0, 2),
          sse({ error: { message: "maximum context length is 8192 tokens", type: "invalid_request_error" } }),
        ],
      },
    ]);
    await expect(collect(adapter().stream(ask("x")))).rejects.toBeInstanceOf(ContextLengthError);
  });

  it("throws StreamError for event data that is not JSON", async () => {
    server.setHandler([{ kind: "sse", frames: ["data: {not json\n\n"] }]);
    await expect(collect(adapter().stream(ask("x")))).rejects.toBeInstanceOf(StreamError);
  });

  it("throws StreamError when the connection is cut mid-stream", async () => {
    const c: Completion = { id: "cut", content: "a long reply that gets cut", finish: "stop" };
    server.setHandler([{ kind: "sse", frames: chunkFrames(c), cutAfter: 3 }]);
    const seen: StreamEvent[] = [];
    const err = await (async () => {
      for await (const e of adapter().stream(ask("x"))) seen.push(e);
    })().catch((e: unknown) => e);
    expect(seen.length).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(StreamError);
  });

  it("aborts mid-stream promptly with AbortError", async () => {
    const c: Completion = { id: "ab", content: "stalling reply here", finish: "stop" };
    server.setHandler([{ kind: "sse", frames: chunkFrames(c), stallAfter: 3 }]);
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const err = await (async () => {
      for await (const e of adapter().stream(ask("x", { signal: controller.signal }))) {
        seen.push(e);
        if (e.type === "text_delta") controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(seen.filter((e) => e.type === "text_delta")).toHaveLength(1);
  });

  it("rejects an already-aborted signal without sending anything", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(adapter().complete(ask("x", { signal: controller.signal }))).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("times out a complete() that gets no answer with RequestTimeoutError", async () => {
    server.setHandler([{ kind: "hang" }]);
    await expect(adapter({ timeout: { requestMs: 150 } }).complete(ask("x"))).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
  });
});
