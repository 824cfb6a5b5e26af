import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  AccessDeniedError,
  AuthenticationError,
  ContextLengthError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  StreamError,
} from "../src/errors.js";
import { OpenAIAdapter } from "../src/providers/openai/index.js";
import { StreamAccumulator } from "../src/stream/accumulator.js";
import {
  callItem,
  messageItem,
  type Reply,
  reasoningItem,
  responseObject,
  sse,
  sseReply,
  startWireServer,
  streamFrames,
  usage,
  type WireServer,
} from "../src/testing/index.js";
import {
  assistantMessage,
  developerMessage,
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
  server = await startWireServer([]);
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

const adapter = (extra: ConstructorParameters<typeof OpenAIAdapter>[0] = {}) =>
  new OpenAIAdapter({ apiKey: "sk-test", baseUrl: `${server.url}/v1`, env: {}, ...extra });

const ask = (text: string, extra: Partial<Request> = {}): Request => ({
  model: "gpt-5.2",
  messages: [systemMessage("Be brief."), userMessage(text)],
  ...extra,
});

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

/** Streams and completes the same response object; returns both translations. */
async function bothWays(wire: Record<string, unknown>, request: Request, headers?: Record<string, string>) {
  server.setHandler([
    { kind: "json", body: wire, ...(headers && { headers }) },
    sseReply(wire, { ...(headers && { headers }) }),
  ]);
  const a = adapter();
  const completed = await a.complete(request);
  const events = await collect(a.stream(request));
  return { completed, events, streamed: finishOf(events) };
}

describe("OpenAIAdapter: text", () => {
  it("completes a text response with usage, rate limits and the request translated", async () => {
    const wire = responseObject("resp_1", [messageItem("msg_1", "Hello there.")], usage(12, 4));
    server.setHandler([
      {
        kind: "json",
        body: wire,
        headers: { "x-ratelimit-remaining-requests": "99", "x-ratelimit-limit-tokens": "1000" },
      },
    ]);
    const res = await adapter().complete(
      ask("Say hello", { temperature: 0.2, maxTokens: 50, metadata: { run: "t1" } }),
    );
    expect(responseText(res)).toBe("Hello there.");
    expect(res).toMatchObject({ id: "resp_1", model: "gpt-5.2-2025-12-11", provider: "openai" });
    expect(res.finishReason).toEqual({ reason: "stop", raw: "completed" });
    expect(res.usage).toMatchObject({
      inputTokens: 12,
      outputTokens: 4,
      totalTokens: 16,
      reasoningTokens: 0,
    });
    expect(res.rateLimit).toEqual({ requestsRemaining: 99, tokensLimit: 1000 });
    const req = server.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/responses");
    expect(req.body).toMatchObject({
      model: "gpt-5.2",
      instructions: "Be brief.",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Say hello" }] }],
      store: false,
      temperature: 0.2,
      max_output_tokens: 50,
      metadata: { run: "t1" },
    });
    expect(req.body.stream).toBe(false);
  });

  it("streams text whose deltas concatenate to the completed text, and equals complete()", async () => {
    const wire = responseObject(
      "resp_2",
      [messageItem("msg_2", "Streaming works across many small chunks.")],
      usage(9, 8),
    );
    const { completed, events, streamed } = await bothWays(wire, ask("stream"), {
      "x-ratelimit-remaining-tokens": "5",
    });
    expect(events[0]).toEqual({ type: "stream_start", id: "resp_2", model: "gpt-5.2-2025-12-11" });
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Streaming works across many small chunks.");
    const types = events.map((e) => e.type);
    expect(types.indexOf("text_start")).toBeLessThan(types.indexOf("text_delta"));
    expect(types.indexOf("text_end")).toBeGreaterThan(types.lastIndexOf("text_delta"));
    expect(streamed).toEqual(completed);
    const acc = new StreamAccumulator("openai");
    for (const e of events) acc.process(e);
    expect(acc.response()).toEqual(completed);
    expect(server.requests[1]!.body.stream).toBe(true);
  });

  it("parses events whose JSON is split over several data lines", async () => {
    const wire = responseObject("resp_ml", [messageItem("msg_ml", "multi\nline")], usage(1, 2));
    server.setHandler([sseReply(wire, { multiline: true })]);
    const res = finishOf(await collect(adapter().stream(ask("x"))));
    expect(responseText(res)).toBe("multi\nline");
  });

  it("translates all five roles: instructions, developer items, messages and function call items", async () => {
    server.setHandler([{ kind: "json", body: responseObject("r5", [messageItem("m5", "ok")], usage(1, 1)) }]);
    await adapter().complete({
      model: "gpt-5.2",
      messages: [
        systemMessage("Be brief."),
        developerMessage("Prefer metric units."),
        userMessage("Weather?"),
        assistantMessage([
          { kind: "text", text: "Checking." },
          { kind: "tool_call", toolCall: { id: "call_w", name: "weather", arguments: { city: "Oslo" } } },
        ]),
        toolResultMessage("call_w", "12 C"),
        systemMessage("Answer in English."),
      ],
    });
    const body = server.requests[0]!.body;
    expect(body.instructions).toBe("Be brief.\n\nAnswer in English.");
    expect(body.input).toEqual([
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Prefer metric units." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Weather?" }] },
      // Text that came from no Responses output item goes back as a plain assistant message.
      { type: "message", role: "assistant", content: "Checking." },
      { type: "function_call", call_id: "call_w", name: "weather", arguments: '{"city":"Oslo"}' },
      { type: "function_call_output", call_id: "call_w", output: "12 C" },
    ]);
  });

  it("maps an incomplete response to length", async () => {
    const wire = responseObject("resp_len", [messageItem("msg_l", "cut sho")], usage(3, 50), {
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
    const { completed, streamed } = await bothWays(wire, ask("long"));
    expect(completed.finishReason).toEqual({ reason: "length", raw: "max_output_tokens" });
    expect(streamed).toEqual(completed);
  });
});

describe("OpenAIAdapter: tools", () => {
  const tools = [
    {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ];

  it("translates tools, tool choice and a single call", async () => {
    const wire = responseObject(
      "resp_t",
      [callItem("fc_1", "call_A", "read_file", '{"path":"a.txt"}')],
      usage(20, 7),
    );
    const { completed, streamed, events } = await bothWays(
      wire,
      ask("read a.txt", { tools, toolChoice: { mode: "named", toolName: "read_file" } }),
    );
    expect(completed.finishReason.reason).toBe("tool_calls");
    expect(responseToolCalls(completed)).toEqual([
      {
        id: "call_A",
        name: "read_file",
        arguments: { path: "a.txt" },
        rawArguments: '{"path":"a.txt"}',
        type: "function",
      },
    ]);
    expect(streamed).toEqual(completed);
    const argDeltas = events.flatMap((e) => (e.type === "tool_call_delta" ? [e.argumentsDelta] : []));
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(argDeltas.join("")).toBe('{"path":"a.txt"}');
    expect(events.find((e) => e.type === "tool_call_start")).toEqual({
      type: "tool_call_start",
      id: "call_A",
      name: "read_file",
    });
    const body = server.requests[0]!.body;
    expect(body.tools).toEqual([{ type: "function", strict: false, ...tools[0] }]);
    expect(body.tool_choice).toEqual({ type: "function", name: "read_file" });
  });

  it("returns parallel calls in order, streamed and completed alike", async () => {
    const wire = responseObject(
      "resp_p",
      [
        callItem("fc_1", "call_1", "read_file", '{"path":"a"}'),
        callItem("fc_2", "call_2", "read_file", '{"path":"b"}'),
      ],
      usage(20, 14),
    );
    const { completed, streamed } = await bothWays(
      wire,
      ask("read both", { tools, toolChoice: { mode: "required" } }),
    );
    expect(responseToolCalls(completed).map((c) => [c.id, c.arguments])).toEqual([
      ["call_1", { path: "a" }],
      ["call_2", { path: "b" }],
    ]);
    expect(streamed).toEqual(completed);
    expect(server.requests[0]!.body.tool_choice).toBe("required");
  });

  it("keeps arguments that are not JSON as raw text", async () => {
    const wire = responseObject(
      "resp_bad",
      [callItem("fc_9", "call_9", "read_file", '{"path": "a')],
      usage(1, 1),
    );
    server.setHandler([{ kind: "json", body: wire }]);
    const [call] = responseToolCalls(await adapter().complete(ask("x", { tools })));
    expect(call).toMatchObject({ arguments: {}, rawArguments: '{"path": "a' });
  });

  it("sends calls and their results back as function_call and function_call_output items", async () => {
    const first = responseObject(
      "resp_s1",
      [
        callItem("fc_1", "call_X", "read_file", '{"path":"a.txt"}'),
        callItem("fc_2", "call_Y", "read_file", '{"path":"b.txt"}'),
      ],
      usage(20, 7),
    );
    const second = responseObject("resp_s2", [messageItem("msg_s2", "The file says hi.")], usage(40, 6));
    server.setHandler([{ kind: "json", body: first }, sseReply(second)]);
    const a = adapter();
    const step1 = await a.complete(ask("read a.txt", { tools }));
    const history = [
      ...ask("read a.txt").messages,
      step1.message,
      toolResultMessage("call_X", "hi", false),
      toolResultMessage("call_Y", { code: 2 }, true),
    ];
    const step2 = finishOf(await collect(a.stream({ model: "gpt-5.2", messages: history, tools })));
    expect(responseText(step2)).toBe("The file says hi.");
    const input = server.requests[1]!.body.input as Record<string, unknown>[];
    expect(input.slice(1)).toEqual([
      { type: "function_call", call_id: "call_X", name: "read_file", arguments: '{"path":"a.txt"}' },
      { type: "function_call", call_id: "call_Y", name: "read_file", arguments: '{"path":"b.txt"}' },
      { type: "function_call_output", call_id: "call_X", output: "hi" },
      { type: "function_call_output", call_id: "call_Y", output: 'Error: {"code":2}' },
    ]);
  });
});

describe("OpenAIAdapter: reasoning and caching", () => {
  it("maps reasoning summaries, tokens and encrypted content, and replays them", async () => {
    const wire = responseObject(
      "resp_r",
      [reasoningItem("rs_1", ["First I look.", "Then I answer."], "gAAAA-enc"), messageItem("msg_r", "42")],
      usage(30, 120, { reasoning: 100, cached: 16 }),
    );
    const { completed, streamed, events } = await bothWays(wire, ask("think", { reasoningEffort: "high" }));
    expect(completed.usage).toMatchObject({ reasoningTokens: 100, cacheReadTokens: 16, outputTokens: 120 });
    expect(responseReasoning(completed)).toBe("First I look.\n\nThen I answer.");
    expect(completed.message.content[0]).toEqual({
      kind: "thinking",
      thinking: {
        text: "First I look.\n\nThen I answer.",
        provider: "openai",
        id: "rs_1",
        signature: "gAAAA-enc",
      },
    });
    expect(streamed).toEqual(completed);
    const reasoningDeltas = events.flatMap((e) => (e.type === "reasoning_delta" ? [e.delta] : []));
    expect(reasoningDeltas.join("")).toBe("First I look.\n\nThen I answer.");
    expect(events.some((e) => e.type === "reasoning_start")).toBe(true);
    expect(server.requests[0]!.body).toMatchObject({
      reasoning: { effort: "high", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      store: false,
    });

    server.setHandler([
      { kind: "json", body: responseObject("resp_r2", [messageItem("m", "ok")], usage(1, 1)) },
    ]);
    await adapter().complete({
      model: "gpt-5.2",
      messages: [
        userMessage("think"),
        completed.message,
        assistantMessage([
          { kind: "thinking", thinking: { text: "foreign", signature: "sig", provider: "anthropic" } },
        ]),
        userMessage("again"),
      ],
    });
    const input = server.requests[2]!.body.input as Record<string, unknown>[];
    expect(input[1]).toEqual({
      type: "reasoning",
      id: "rs_1",
      encrypted_content: "gAAAA-enc",
      summary: [{ type: "summary_text", text: "First I look.\n\nThen I answer." }],
    });
    // The output message goes back as the same item: its id and status, as an input item needs.
    expect(input[2]).toEqual({
      type: "message",
      role: "assistant",
      id: "msg_r",
      status: "completed",
      content: [{ type: "output_text", text: "42", annotations: [], logprobs: [] }],
    });
    expect(input.filter((i) => i.type === "reasoning")).toHaveLength(1);
  });

  it("reports cached input tokens", async () => {
    const wire = responseObject("resp_c", [messageItem("m", "cached")], usage(2000, 3, { cached: 1536 }));
    server.setHandler([{ kind: "json", body: wire }]);
    const res = await adapter().complete(ask("again"));
    expect(res.usage.cacheReadTokens).toBe(1536);
    expect(res.usage.inputTokens).toBe(2000);
  });
});

describe("OpenAIAdapter: request content", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "openai-img-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("sends images by URL, from bytes and from a local file", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const file = join(dir, "shot.jpg");
    await writeFile(file, png);
    server.setHandler([{ kind: "json", body: responseObject("r", [messageItem("m", "seen")], usage(1, 1)) }]);
    await adapter().complete({
      model: "gpt-5.2",
      messages: [
        userMessage([
          { kind: "text", text: "what is this" },
          { kind: "image", image: { url: "https://example.com/cat.png", detail: "low" } },
          { kind: "image", image: { data: new Uint8Array(png) } },
          { kind: "image", image: { path: file } },
        ]),
      ],
    });
    const content = server.requests[0]!.body.input[0].content;
    expect(content).toEqual([
      { type: "input_text", text: "what is this" },
      { type: "input_image", image_url: "https://example.com/cat.png", detail: "low" },
      { type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}`, detail: "auto" },
      { type: "input_image", image_url: `data:image/jpeg;base64,${png.toString("base64")}`, detail: "auto" },
    ]);
  });

  it("sends PDFs as input_file and drops audio with a warning", async () => {
    const pdf = Buffer.from("%PDF-1.4 tiny");
    server.setHandler([{ kind: "json", body: responseObject("r", [messageItem("m", "read")], usage(1, 1)) }]);
    const res = await adapter().complete({
      model: "gpt-5.2",
      messages: [
        userMessage([
          { kind: "text", text: "summarise" },
          { kind: "document", document: { data: new Uint8Array(pdf), fileName: "spec.pdf" } },
          { kind: "document", document: { url: "https://example.com/a.pdf" } },
          { kind: "audio", audio: { data: new Uint8Array([1, 2]), mediaType: "audio/wav" } },
        ]),
      ],
    });
    expect(server.requests[0]!.body.input[0].content).toEqual([
      { type: "input_text", text: "summarise" },
      {
        type: "input_file",
        filename: "spec.pdf",
        file_data: `data:application/pdf;base64,${pdf.toString("base64")}`,
      },
      { type: "input_file", file_url: "https://example.com/a.pdf" },
    ]);
    expect(res.warnings.map((w) => w.code)).toEqual(["dropped_audio"]);
  });

  it("fails clearly when a local image cannot be read, before any request", async () => {
    const err = await adapter()
      .complete({
        model: "m",
        messages: [userMessage([{ kind: "image", image: { path: join(dir, "missing.png") } }])],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as Error).message).toContain("missing.png");
    expect(server.requests).toHaveLength(0);
  });

  it("requests structured output with text.format, strict only for a schema strict mode accepts", async () => {
    const schema = {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
      additionalProperties: false,
    };
    server.setHandler([
      { kind: "json", body: responseObject("r", [messageItem("m", '{"n":3}')], usage(1, 1)) },
      { kind: "json", body: responseObject("r", [messageItem("m", "{}")], usage(1, 1)) },
    ]);
    const res = await adapter().complete(
      ask("count", { responseFormat: { type: "json_schema", schema, name: "count", strict: true } }),
    );
    expect(JSON.parse(responseText(res))).toEqual({ n: 3 });
    expect(server.requests[0]!.body.text).toEqual({
      format: { type: "json_schema", name: "count", schema, strict: true },
    });
    await adapter().complete(ask("json", { responseFormat: { type: "json" } }));
    expect(server.requests[1]!.body.text).toEqual({ format: { type: "json_object" } });
    // An optional field (not in required) and an open object: strict mode would reject the schema.
    const loose = { type: "object", properties: { n: { type: "integer" }, note: { type: "string" } } };
    server.setHandler([
      { kind: "json", body: responseObject("r", [messageItem("m", '{"n":1}')], usage(1, 1)) },
    ]);
    await adapter().complete(
      ask("count", { responseFormat: { type: "json_schema", schema: loose, name: "count", strict: true } }),
    );
    expect(server.requests[2]!.body.text.format.strict).toBe(false);
  });

  it("sends auth, organization, project and custom headers, and merges providerOptions last", async () => {
    server.setHandler([{ kind: "json", body: responseObject("r", [messageItem("m", "ok")], usage(1, 1)) }]);
    const a = new OpenAIAdapter({
      baseUrl: `${server.url}/v1`,
      env: { OPENAI_API_KEY: "sk-from-env", OPENAI_ORG_ID: "org-9", OPENAI_PROJECT_ID: "proj-3" },
      defaultHeaders: { "x-trace": "abc" },
    });
    await a.complete(
      ask("hi", {
        providerOptions: { openai: { store: true, service_tier: "flex" }, anthropic: { ignored: 1 } },
      }),
    );
    const req = server.requests[0]!;
    expect(req.headers.authorization).toBe("Bearer sk-from-env");
    expect(req.headers["openai-organization"]).toBe("org-9");
    expect(req.headers["openai-project"]).toBe("proj-3");
    expect(req.headers["x-trace"]).toBe("abc");
    expect(req.body).toMatchObject({ store: true, service_tier: "flex" });
    expect(req.body.ignored).toBeUndefined();
  });

  it("takes the base URL from OPENAI_BASE_URL and fails at request time without a key", async () => {
    server.setHandler([{ kind: "json", body: responseObject("r", [messageItem("m", "env")], usage(1, 1)) }]);
    const viaEnv = new OpenAIAdapter({ env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${server.url}/v1` } });
    expect(responseText(await viaEnv.complete(ask("x")))).toBe("env");
    const keyless = new OpenAIAdapter({ baseUrl: `${server.url}/v1`, env: {} });
    const err = await keyless.complete(ask("x")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as Error).message).toContain("OPENAI_API_KEY");
    await expect(collect(keyless.stream(ask("x")))).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe("OpenAIAdapter: errors", () => {
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
    it(`maps HTTP ${status} to ${cls.name} (retryable: ${retryable})`, async () => {
      const body = {
        error: { message: `status ${status} happened`, type: "api_error", param: null, code: `e${status}` },
      };
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
        expect(String(err.message)).toContain(`status ${status} happened`);
        if (status !== 408) {
          expect(err).toMatchObject({
            statusCode: status,
            provider: "openai",
            raw: body,
            errorCode: `e${status}`,
          });
        }
        if (status === 429) expect(err.retryAfter).toBe(7);
      }
    });
  }

  it("keeps a non-JSON error body as raw text", async () => {
    server.setHandler([{ kind: "text", status: 502, body: "<html>bad gateway</html>" }]);
    const err = await adapter()
      .complete(ask("x"))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ statusCode: 502, raw: "<html>bad gateway</html>" });
  });

  it("classifies a 400 about the context window as ContextLengthError", async () => {
    const body = {
      error: {
        message: "Your input exceeds the context window of this model.",
        code: "context_length_exceeded",
      },
    };
    server.setHandler([{ kind: "json", status: 400, body }]);
    await expect(adapter().complete(ask("x"))).rejects.toBeInstanceOf(ContextLengthError);
  });

  it("throws the mapped error for response.failed and error events", async () => {
    const failed = responseObject("rf", [], null, {
      status: "failed",
      error: { code: "rate_limit_exceeded", message: "Slow down" },
    });
    server.setHandler([
      {
        kind: "sse",
        frames: [
          sse(
            { type: "response.created", response: { ...failed, status: "in_progress" } },
            { event: "response.created" },
          ),
          sse({ type: "response.failed", response: failed }, { event: "response.failed" }),
        ],
      },
      {
        kind: "sse",
        frames: [
          sse(
            { type: "response.created", response: { ...failed, status: "in_progress" } },
            { event: "response.created" },
          ),
          sse(
            { type: "error", code: "server_error", message: "The server had an error", param: null },
            { event: "error" },
          ),
        ],
      },
    ]);
    const a = adapter();
    await expect(collect(a.stream(ask("x")))).rejects.toBeInstanceOf(RateLimitError);
    await expect(collect(a.stream(ask("x")))).rejects.toBeInstanceOf(ServerError);
  });

  it("throws StreamError when the connection is cut mid-stream", async () => {
    const wire = responseObject(
      "rc",
      [messageItem("m", "this will be cut somewhere in the middle")],
      usage(1, 9),
    );
    const frames = streamFrames(wire);
    server.setHandler([{ kind: "sse", frames, cutAfter: 6 }]);
    const seen: StreamEvent[] = [];
    const err = await (async () => {
      for await (const e of adapter().stream(ask("x"))) seen.push(e);
    })().catch((e: unknown) => e);
    expect(seen.length).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(StreamError);
  });

  it("throws StreamError when the stream ends without response.completed", async () => {
    const wire = responseObject("re", [messageItem("m", "no end")], usage(1, 2));
    server.setHandler([{ kind: "sse", frames: streamFrames(wire).slice(0, -1) }]);
    await expect(collect(adapter().stream(ask("x")))).rejects.toBeInstanceOf(StreamError);
  });

  it("aborts mid-stream promptly with AbortError", async () => {
    const wire = responseObject("ra", [messageItem("m", "a long answer that stalls")], usage(1, 9));
    server.setHandler([{ kind: "sse", frames: streamFrames(wire), stallAfter: 6 }]);
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

  it("aborts a pending complete() with AbortError", async () => {
    server.setHandler([{ kind: "hang" }]);
    const controller = new AbortController();
    const pending = adapter().complete(ask("x", { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it("times out a silent stream with RequestTimeoutError", async () => {
    const wire = responseObject("rt", [messageItem("m", "stalls")], usage(1, 9));
    server.setHandler([{ kind: "sse", frames: streamFrames(wire), stallAfter: 3 }]);
    const a = adapter({ timeout: { streamReadMs: 150 } });
    await expect(collect(a.stream(ask("x")))).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it("reports an unreachable server as NetworkError", async () => {
    const dead = await startWireServer([]);
    const url = dead.url;
    await dead.close();
    const a = new OpenAIAdapter({ apiKey: "k", baseUrl: `${url}/v1`, env: {} });
    const err = await a.complete(ask("x")).catch((e: unknown) => e);
    expect((err as Error).name).toBe("NetworkError");
    expect((err as { retryable: boolean }).retryable).toBe(true);
  });
});
