import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  AccessDeniedError,
  AuthenticationError,
  assistantMessage,
  ContentFilterError,
  ContextLengthError,
  GeminiAdapter,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  ProviderError,
  QuotaExceededError,
  RateLimitError,
  type Request,
  RequestTimeoutError,
  type Response,
  responseReasoning,
  responseText,
  responseToolCalls,
  ServerError,
  StreamAccumulator,
  StreamError,
  type StreamEvent,
  systemMessage,
  toolResultMessage,
  userMessage,
} from "../src/index.js";
import { type Reply, sse, startWireServer, type WireServer } from "../src/testing/index.js";

const MODEL = "gemini-2.5-flash";
let server: WireServer;

beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
});

const adapter = (extra: ConstructorParameters<typeof GeminiAdapter>[0] = {}) =>
  new GeminiAdapter({ apiKey: "test-key", baseUrl: server.url, env: {}, ...extra });

const usage = (prompt: number, candidates: number, extra: Record<string, number> = {}) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: prompt + candidates + (extra.thoughtsTokenCount ?? 0),
  ...extra,
});

/** A generateContent body, as documented. */
const body = (parts: unknown[], finishReason = "STOP", meta: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
  usageMetadata: usage(12, 7),
  modelVersion: MODEL,
  responseId: "resp-abc",
  ...meta,
});

/** The same answer as SSE chunks: parts spread over chunks, finishReason and usage on the last. */
const sseChunks = (
  chunks: unknown[][],
  finishReason = "STOP",
  meta: Record<string, unknown> = {},
): readonly string[] =>
  chunks.map((parts, i) => {
    const last = i === chunks.length - 1;
    return sse({
      candidates: [{ content: { role: "model", parts }, index: 0, ...(last && { finishReason }) }],
      usageMetadata: last ? usage(12, 7) : { promptTokenCount: 12, totalTokenCount: 12 },
      modelVersion: MODEL,
      responseId: "resp-abc",
      ...(last ? meta : {}),
    });
  });

const json = (b: unknown, status = 200, headers?: Record<string, string>): Reply => ({
  kind: "json",
  status,
  body: b,
  ...(headers && { headers }),
});

async function collect(iter: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of iter) events.push(e);
  return events;
}

const finishOf = (events: StreamEvent[]) => {
  const last = events.at(-1);
  if (last?.type !== "finish") throw new Error(`last event is ${last?.type}`);
  return last.response;
};

/** What must agree between complete() and stream(): everything but the raw wire payloads. */
const comparable = (r: Response) => ({
  ...r,
  raw: undefined,
  usage: { ...r.usage, raw: undefined },
});

const req = (extra: Partial<Request> = {}): Request => ({
  model: MODEL,
  messages: [userMessage("Say hi")],
  ...extra,
});

describe("GeminiAdapter request shape", () => {
  it("posts to generateContent with the key header and maps roles and generation settings", async () => {
    server.setHandler([json(body([{ text: "Hello there" }]))]);
    const res = await adapter().complete(
      req({
        messages: [
          systemMessage("Be brief."),
          { role: "developer", content: [{ kind: "text", text: "Use English." }] },
          userMessage("Hi"),
          assistantMessage("Hello."),
          userMessage("Again"),
        ],
        maxTokens: 100,
        temperature: 0.3,
        topP: 0.9,
        stopSequences: ["END"],
      }),
    );
    const r = server.requests[0]!;
    expect(r.method).toBe("POST");
    expect(r.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
    expect(r.headers["x-goog-api-key"] ?? r.query.get("key")).toBe("test-key");
    expect(r.body.systemInstruction.parts).toEqual([{ text: "Be brief.\n\nUse English." }]);
    expect(r.body.contents).toEqual([
      { role: "user", parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ text: "Hello." }] },
      { role: "user", parts: [{ text: "Again" }] },
    ]);
    expect(r.body.generationConfig).toMatchObject({
      maxOutputTokens: 100,
      temperature: 0.3,
      topP: 0.9,
      stopSequences: ["END"],
      thinkingConfig: { includeThoughts: true },
    });
    expect(responseText(res)).toBe("Hello there");
    expect(res).toMatchObject({
      id: "resp-abc",
      model: MODEL,
      provider: "gemini",
      finishReason: { reason: "stop", raw: "STOP" },
      usage: { inputTokens: 12, outputTokens: 7, totalTokens: 19 },
    });
    expect(res.raw).toMatchObject({ responseId: "resp-abc" });
  });

  it("maps tools, tool choice, structured output, reasoning effort and provider options", async () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    server.setHandler([json(body([{ text: "{}" }])), json(body([{ text: "{}" }]))]);
    await adapter().complete(
      req({
        model: "gemini-3-pro-preview",
        tools: [{ name: "get_weather", description: "Weather for a city", parameters: schema }],
        toolChoice: { mode: "named", toolName: "get_weather" },
        responseFormat: { type: "json_schema", schema },
        reasoningEffort: "low",
        providerOptions: {
          gemini: {
            safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
            cachedContent: "cachedContents/abc123",
          },
          openai: { store: true },
        },
      }),
    );
    const b = server.requests[0]!.body;
    expect(b.tools).toEqual([
      {
        functionDeclarations: [
          { name: "get_weather", description: "Weather for a city", parametersJsonSchema: schema },
        ],
      },
    ]);
    expect(b.toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] },
    });
    expect(b.generationConfig).toMatchObject({
      responseMimeType: "application/json",
      responseJsonSchema: schema,
      thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" },
    });
    expect(b.safetySettings).toEqual([{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }]);
    expect(b.cachedContent).toBe("cachedContents/abc123");
    expect(JSON.stringify(b)).not.toContain("store");

    await adapter().complete(
      req({ responseFormat: { type: "json" }, reasoningEffort: "high", toolChoice: { mode: "none" } }),
    );
    const b2 = server.requests[1]!.body;
    expect(b2.generationConfig.responseMimeType).toBe("application/json");
    expect(b2.generationConfig.responseJsonSchema).toBeUndefined();
    expect(b2.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 24576 });
  });

  it("sends images inline from data, from a local file, and by URL as fileData", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gemini-img-"));
    try {
      const file = join(dir, "pic.jpg");
      await writeFile(file, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]));
      server.setHandler([json(body([{ text: "A picture" }]))]);
      await adapter().complete(
        req({
          messages: [
            userMessage([
              { kind: "text", text: "What are these?" },
              { kind: "image", image: { data: new Uint8Array([1, 2, 3]), mediaType: "image/png" } },
              { kind: "image", image: { path: file } },
              { kind: "image", image: { url: "https://example.com/cat.webp" } },
            ]),
          ],
        }),
      );
      expect(server.requests[0]!.body.contents[0].parts).toEqual([
        { text: "What are these?" },
        { inlineData: { mimeType: "image/png", data: Buffer.from([1, 2, 3]).toString("base64") } },
        {
          inlineData: {
            mimeType: "image/jpeg",
            data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).toString("base64"),
          },
        },
        { fileData: { fileUri: "https://example.com/cat.webp", mimeType: "image/webp" } },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sends audio and documents inline", async () => {
    server.setHandler([json(body([{ text: "heard and read" }]))]);
    await adapter().complete(
      req({
        messages: [
          userMessage([
            { kind: "audio", audio: { data: new Uint8Array([9, 8]), mediaType: "audio/mpeg" } },
            { kind: "document", document: { data: "JVBERi0=", mediaType: "application/pdf" } },
          ]),
        ],
      }),
    );
    expect(server.requests[0]!.body.contents[0].parts).toEqual([
      { inlineData: { mimeType: "audio/mpeg", data: Buffer.from([9, 8]).toString("base64") } },
      { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
    ]);
  });

  it("rejects an unreadable image path without sending anything", async () => {
    const err = await adapter()
      .complete(req({ messages: [userMessage([{ kind: "image", image: { path: "/nonexistent/x.png" } }])] }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("GeminiAdapter responses", () => {
  it("streams text whose deltas add up to the final text, equal to complete()'s response", async () => {
    const parts = [[{ text: "The quick " }], [{ text: "brown fox " }], [{ text: "jumps." }]];
    server.setHandler([
      { kind: "sse", frames: sseChunks(parts) },
      json(body([{ text: "The quick brown fox jumps." }])),
    ]);
    const events = await collect(adapter().stream(req()));
    const r = server.requests[0]!;
    expect(r.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent`);
    expect(r.query.get("alt")).toBe("sse");
    expect(events.map((e) => e.type)).toEqual([
      "stream_start",
      "text_start",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_end",
      "finish",
    ]);
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
    const streamed = finishOf(events);
    expect(deltas).toBe("The quick brown fox jumps.");
    expect(responseText(streamed)).toBe(deltas);

    const acc = new StreamAccumulator("gemini");
    for (const e of events.slice(0, -1)) acc.process(e);
    const completed = await adapter().complete(req());
    expect(comparable(streamed)).toEqual(comparable(completed));
    expect(acc.message()).toEqual(completed.message);
  });

  it("gives parallel function calls unique synthesized ids, in stream and complete alike", async () => {
    const calls = [
      { functionCall: { name: "read_file", args: { path: "a.ts" } } },
      { functionCall: { name: "read_file", args: { path: "b.ts" } } },
    ];
    server.setHandler([json(body(calls)), { kind: "sse", frames: sseChunks([[calls[0]], [calls[1]]]) }]);
    const res = await adapter().complete(req());
    const tc = responseToolCalls(res);
    expect(tc.map((c) => [c.name, c.arguments])).toEqual([
      ["read_file", { path: "a.ts" }],
      ["read_file", { path: "b.ts" }],
    ]);
    expect(tc[0]!.id).toMatch(/^call_[0-9a-f-]{36}$/);
    expect(new Set(tc.map((c) => c.id)).size).toBe(2);
    expect(res.finishReason).toEqual({ reason: "tool_calls", raw: "STOP" });

    const events = await collect(adapter().stream(req()));
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === "tool_call_start")).toHaveLength(2);
    const starts = events.flatMap((e) => (e.type === "tool_call_start" ? [e.id] : []));
    const ends = events.flatMap((e) => (e.type === "tool_call_end" ? [e.toolCall.id] : []));
    expect(ends).toEqual(starts);
    expect(finishOf(events).finishReason.reason).toBe("tool_calls");
  });

  it("keeps an API-given call id and round-trips calls, results and thought signatures", async () => {
    server.setHandler([
      json(
        body([
          { text: "Let me look.", thought: true, thoughtSignature: "c2lnLXRob3VnaHQ=" },
          { functionCall: { name: "shell", args: { command: "ls" } }, thoughtSignature: "c2lnLWNhbGw=" },
          { functionCall: { id: "fc-7", name: "grep", args: { pattern: "x" } } },
        ]),
      ),
      json(body([{ text: "Done." }])),
    ]);
    const first = await adapter().complete(req({ messages: [userMessage("List files")] }));
    const [shell, grep] = responseToolCalls(first);
    expect(shell!.thoughtSignature).toBe("c2lnLWNhbGw=");
    expect(grep!.id).toBe("fc-7");

    await adapter().complete(
      req({
        messages: [
          userMessage("List files"),
          first.message,
          toolResultMessage(shell!.id, "a.ts\nb.ts"),
          toolResultMessage(grep!.id, "no match", true),
        ],
      }),
    );
    const contents = server.requests[1]!.body.contents;
    expect(contents).toEqual([
      { role: "user", parts: [{ text: "List files" }] },
      {
        role: "model",
        parts: [
          { text: "Let me look.", thought: true, thoughtSignature: "c2lnLXRob3VnaHQ=" },
          { functionCall: { name: "shell", args: { command: "ls" } }, thoughtSignature: "c2lnLWNhbGw=" },
          { functionCall: { id: "fc-7", name: "grep", args: { pattern: "x" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "shell", response: { result: "a.ts\nb.ts" } } },
          { functionResponse: { id: "fc-7", name: "grep", response: { error: "no match" } } },
        ],
      },
    ]);
  });

  it("keeps signatures on text parts and on signature-only parts, and sends them back in place", async () => {
    // Gemini 3: a signature may sit on an answer's text part, or arrive alone on a last part
    // without text (streaming), after thoughts or after a function call.
    const thought = { text: "Plan the answer.", thought: true };
    const alone = { thought: true, thoughtSignature: "c2lnLTE=" };
    const answer = { text: "Paris.", thoughtSignature: "c2lnLTI=" };
    const trailing = { text: "", thoughtSignature: "c2lnLTM=" };
    server.setHandler([
      json(body([thought, alone, answer, { text: " Next?" }, trailing])),
      {
        kind: "sse",
        frames: sseChunks([
          [thought],
          [alone],
          [{ text: "Par" }],
          [answer],
          [{ text: " Next?" }],
          [trailing],
        ]),
      },
      json(body([{ text: "ok" }])),
    ]);
    const completed = await adapter().complete(req());
    expect(completed.message.content).toEqual([
      { kind: "thinking", thinking: { text: "Plan the answer.", signature: "c2lnLTE=", provider: "gemini" } },
      { kind: "text", text: "Paris.", thoughtSignature: "c2lnLTI=" },
      { kind: "text", text: " Next?", thoughtSignature: "c2lnLTM=" },
    ]);
    const events = await collect(adapter().stream(req()));
    const ends = events.flatMap((e) => (e.type === "text_end" ? [e.thoughtSignature] : []));
    expect(ends).toEqual(["c2lnLTI=", "c2lnLTM="]);
    expect(finishOf(events).message.content).toEqual([
      { kind: "thinking", thinking: { text: "Plan the answer.", signature: "c2lnLTE=", provider: "gemini" } },
      { kind: "text", text: "ParParis.", thoughtSignature: "c2lnLTI=" },
      { kind: "text", text: " Next?", thoughtSignature: "c2lnLTM=" },
    ]);

    await adapter().complete(
      req({ messages: [userMessage("Capital?"), completed.message, userMessage("Go on")] }),
    );
    expect(server.requests[2]!.body.contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "Plan the answer.", thought: true, thoughtSignature: "c2lnLTE=" },
        { text: "Paris.", thoughtSignature: "c2lnLTI=" },
        { text: " Next?", thoughtSignature: "c2lnLTM=" },
      ],
    });
  });

  it("fails clearly when a tool result names no call it can find", async () => {
    const err = await adapter()
      .complete(req({ messages: [userMessage("x"), toolResultMessage("call_missing", "out")] }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(String((err as Error).message)).toContain("call_missing");
  });

  it("reports thoughts as reasoning and counts thought and cached tokens apart", async () => {
    const meta = {
      usageMetadata: usage(1000, 50, { thoughtsTokenCount: 300, cachedContentTokenCount: 800 }),
    };
    const parts = [{ text: "Thinking about it.", thought: true }, { text: "42" }];
    server.setHandler([
      json(body(parts, "STOP", meta)),
      { kind: "sse", frames: sseChunks([[parts[0]], [parts[1]]], "STOP", meta) },
    ]);
    const res = await adapter().complete(req());
    expect(responseReasoning(res)).toBe("Thinking about it.");
    expect(res.message.content[0]).toEqual({
      kind: "thinking",
      thinking: { text: "Thinking about it.", provider: "gemini" },
    });
    expect(responseText(res)).toBe("42");
    expect(res.usage).toMatchObject({
      inputTokens: 1000,
      outputTokens: 350,
      reasoningTokens: 300,
      cacheReadTokens: 800,
      totalTokens: 1350,
    });
    const events = await collect(adapter().stream(req()));
    expect(events.map((e) => e.type)).toEqual([
      "stream_start",
      "reasoning_start",
      "reasoning_delta",
      "reasoning_end",
      "text_start",
      "text_delta",
      "text_end",
      "finish",
    ]);
    expect(comparable(finishOf(events))).toEqual(comparable(res));
  });

  it("maps safety and length finishes, and a blocked prompt to ContentFilterError", async () => {
    server.setHandler([
      json(body([], "SAFETY")),
      json(body([{ text: "cut" }], "MAX_TOKENS")),
      json(body([], "MALFORMED_FUNCTION_CALL")),
      json({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: usage(5, 0) }),
      { kind: "sse", frames: [sse({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" } })] },
    ]);
    const a = adapter();
    expect((await a.complete(req())).finishReason).toEqual({ reason: "content_filter", raw: "SAFETY" });
    expect((await a.complete(req())).finishReason).toEqual({ reason: "length", raw: "MAX_TOKENS" });
    expect((await a.complete(req())).finishReason.reason).toBe("error");
    await expect(a.complete(req())).rejects.toBeInstanceOf(ContentFilterError);
    await expect(collect(a.stream(req()))).rejects.toBeInstanceOf(ContentFilterError);
  });
});

describe("GeminiAdapter errors", () => {
  const errorBody = (code: number, status: string, message: string) => ({
    error: { code, message, status },
  });
  const table: [number, string, string, new (...a: never[]) => Error, boolean][] = [
    [400, "INVALID_ARGUMENT", "Invalid JSON payload received.", InvalidRequestError, false],
    [401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", AuthenticationError, false],
    [403, "PERMISSION_DENIED", "The caller does not have permission", AccessDeniedError, false],
    [404, "NOT_FOUND", "models/nope is not found for API version v1beta", NotFoundError, false],
    [408, "DEADLINE_EXCEEDED", "Request timed out.", RequestTimeoutError, false],
    [413, "INVALID_ARGUMENT", "Request payload size exceeds the limit.", ContextLengthError, false],
    [422, "INVALID_ARGUMENT", "Unprocessable request.", InvalidRequestError, false],
    [
      429,
      "RESOURCE_EXHAUSTED",
      "Resource has been exhausted (e.g. check rate limits).",
      RateLimitError,
      true,
    ],
    [500, "INTERNAL", "An internal error has occurred.", ServerError, true],
    [503, "UNAVAILABLE", "The model is overloaded. Please try again later.", ServerError, true],
  ];

  it.each(table)(
    "HTTP %i %s → the right class, once, with the raw body, for complete and stream",
    async (code, status, message, cls, retryable) => {
      const raw = errorBody(code, status, message);
      server.setHandler(() => json(raw, code, code === 429 ? { "retry-after": "7" } : undefined));
      const a = adapter();
      for (const run of [() => a.complete(req()), () => collect(a.stream(req()))]) {
        const err = await run().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(cls);
        expect((err as { retryable: boolean }).retryable).toBe(retryable);
        if (err instanceof ProviderError) {
          expect(err.statusCode).toBe(code);
          expect(err.raw).toEqual(raw);
          expect(err.provider).toBe("gemini");
          if (code === 429) expect(err.retryAfter).toBe(7);
        }
      }
      expect(server.requests).toHaveLength(2);
    },
  );

  it("refines by Gemini's status and reasons: a bad key, a quota, an odd status code", async () => {
    server.setHandler([
      json(
        {
          error: {
            code: 400,
            message: "API key not valid. Please pass a valid API key.",
            status: "INVALID_ARGUMENT",
            details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
          },
        },
        400,
      ),
      json(errorBody(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, check billing."), 429),
      json(errorBody(418, "PERMISSION_DENIED", "no"), 418),
      json(
        errorBody(
          400,
          "INVALID_ARGUMENT",
          "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).",
        ),
        400,
      ),
    ]);
    const a = adapter();
    await expect(a.complete(req())).rejects.toBeInstanceOf(AuthenticationError);
    await expect(a.complete(req())).rejects.toBeInstanceOf(QuotaExceededError);
    await expect(a.complete(req())).rejects.toBeInstanceOf(AccessDeniedError);
    await expect(a.complete(req())).rejects.toBeInstanceOf(ContextLengthError);
  });

  it("maps an HTTP error on the stream endpoint and an error chunk inside the stream", async () => {
    server.setHandler([
      json(errorBody(503, "UNAVAILABLE", "overloaded"), 503),
      {
        kind: "sse",
        frames: [
          sse({ candidates: [{ content: { role: "model", parts: [{ text: "par" }] } }] }),
          sse(errorBody(429, "RESOURCE_EXHAUSTED", "Too many requests")),
        ],
      },
    ]);
    await expect(collect(adapter().stream(req()))).rejects.toBeInstanceOf(ServerError);
    await expect(collect(adapter().stream(req()))).rejects.toBeInstanceOf(RateLimitError);
  });

  it("needs a key only at request time, names both variables, and falls back to GOOGLE_API_KEY", async () => {
    const keyless = new GeminiAdapter({ baseUrl: server.url, env: {} });
    const err = await keyless.complete(req()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as Error).message).toMatch(/GEMINI_API_KEY/);
    expect((err as Error).message).toMatch(/GOOGLE_API_KEY/);
    expect(server.requests).toHaveLength(0);

    server.setHandler([json(body([{ text: "ok" }]))]);
    const fallback = new GeminiAdapter({
      env: { GOOGLE_API_KEY: "g-key", GEMINI_BASE_URL: `${server.url}/v1beta` },
    });
    expect(responseText(await fallback.complete(req()))).toBe("ok");
    expect(server.requests[0]!.headers["x-goog-api-key"]).toBe("g-key");
    expect(server.requests[0]!.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
  });

  it("reports a refused connection as NetworkError", async () => {
    const dead = await startWireServer([]);
    const url = dead.url;
    await dead.close();
    const err = await adapter({ baseUrl: url })
      .complete(req())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
  });

  it("reports a stream cut mid-way, or ended without a finishReason, as StreamError", async () => {
    const frames = sseChunks([[{ text: "one " }], [{ text: "two " }], [{ text: "three" }]]);
    server.setHandler([
      { kind: "sse", frames, cutAfter: 2 },
      { kind: "sse", frames: frames.slice(0, 2) },
    ]);
    const seen: StreamEvent[] = [];
    const err = await (async () => {
      for await (const e of adapter().stream(req())) seen.push(e);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect(seen.some((e) => e.type === "text_delta")).toBe(true);
    await expect(collect(adapter().stream(req()))).rejects.toBeInstanceOf(StreamError);
  });

  it("aborts mid-stream promptly, and before sending", async () => {
    server.setHandler([
      { kind: "sse", frames: sseChunks([[{ text: "a" }], [{ text: "b" }]]), stallAfter: 1 },
    ]);
    const controller = new AbortController();
    const got: StreamEvent[] = [];
    const err = await (async () => {
      for await (const e of adapter().stream(req({ signal: controller.signal }))) {
        got.push(e);
        if (e.type === "text_delta") controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(got.some((e) => e.type === "finish")).toBe(false);

    const pre = new AbortController();
    pre.abort();
    await expect(adapter().complete(req({ signal: pre.signal }))).rejects.toBeInstanceOf(AbortError);
  });

  it("aborts a complete() in flight", async () => {
    server.setHandler([{ kind: "hang" }]);
    const controller = new AbortController();
    const pending = adapter().complete(req({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it("times out a silent request and a stalled stream with RequestTimeoutError", async () => {
    server.setHandler([
      { kind: "hang" },
      { kind: "sse", frames: sseChunks([[{ text: "a" }], [{ text: "b" }]]), stallAfter: 1 },
    ]);
    await expect(adapter({ timeout: { requestMs: 150 } }).complete(req())).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
    await expect(collect(adapter().stream(req({ timeout: { streamReadMs: 150 } })))).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
  });
});
