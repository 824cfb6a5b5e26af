import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/client.js";
import { NoObjectGeneratedError, RateLimitError, RequestTimeoutError, StreamError } from "../src/errors.js";
import { generate, generateObject, stream, tool } from "../src/generate.js";
import type { ProviderAdapter } from "../src/providers/adapter.js";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { GeminiAdapter } from "../src/providers/gemini/index.js";
import { OpenAIAdapter } from "../src/providers/openai/index.js";
import { OpenAICompatibleAdapter } from "../src/providers/openai-compatible/index.js";
import {
  frames as anthropicFrames,
  message as anthropicMessage,
  type Completion,
  callItem,
  chatUsage,
  chunkFrames,
  completionBody,
  generateContentBody,
  messageItem,
  type RecordedRequest,
  type Reply,
  responseObject,
  usage as responsesUsage,
  startWireServer,
  streamChunkFrames,
  streamEventsFor,
  streamFrames,
  usageMetadata,
  type WireServer,
} from "../src/testing/index.js";
import { type Request, type StreamEvent, userMessage } from "../src/types/index.js";

// The same scenarios through each of the four adapters, each against a local server speaking
// that protocol's wire format (JSON bodies and SSE, split across TCP chunks): the multi-step
// tool loop with parallel calls, streaming with tools, structured output, Retry-After, a stream
// cut mid-way (never retried), a connection failure (retried), and timeouts.

interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** One model turn, independent of the protocol. */
interface Turn {
  readonly text?: string;
  readonly calls?: readonly Call[];
  readonly usage: readonly [input: number, output: number];
}

interface Protocol {
  readonly name: string;
  readonly model: string;
  adapter(url: string): ProviderAdapter;
  /** Whether the recorded request asked for a stream. */
  streamed(req: RecordedRequest): boolean;
  /** The wire reply carrying the turn, JSON or SSE as the request asked. */
  reply(turn: Turn, req: RecordedRequest): Reply;
  /** The tool results a request carries, grouped by the message (or run of items) they came in. */
  resultGroups(req: RecordedRequest): string[][];
  /** The JSON schema the request asked the output to follow, wherever the protocol puts it. */
  outputSchema(req: RecordedRequest): unknown;
  /** The reply carrying an object as structured output (a forced tool call on Anthropic). */
  objectReply(value: unknown, req: RecordedRequest): Reply;
}

/** Groups consecutive items that pass `is` into runs, mapped by `text`. */
function runs<T>(items: readonly T[], is: (item: T) => boolean, text: (item: T) => string): string[][] {
  const groups: string[][] = [];
  let current: string[] | undefined;
  for (const item of items) {
    if (is(item)) {
      if (current === undefined) {
        current = [];
        groups.push(current);
      }
      current.push(text(item));
    } else current = undefined;
  }
  return groups;
}

const asText = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

const openai: Protocol = {
  name: "openai",
  model: "gpt-5.2",
  adapter: (url) => new OpenAIAdapter({ apiKey: "sk-test", baseUrl: `${url}/v1`, env: {} }),
  streamed: (req) => req.body.stream === true,
  reply(turn, req) {
    const output = [
      ...(turn.text !== undefined ? [messageItem(`msg_${req.body.input.length}`, turn.text)] : []),
      ...(turn.calls ?? []).map((c) => callItem(`fc_${c.id}`, c.id, c.name, JSON.stringify(c.args))),
    ];
    const wire = responseObject(`resp_${req.body.input.length}`, output, responsesUsage(...turn.usage));
    return this.streamed(req) ? { kind: "sse", frames: streamFrames(wire) } : { kind: "json", body: wire };
  },
  resultGroups: (req) =>
    runs(
      req.body.input as Record<string, unknown>[],
      (i) => i.type === "function_call_output",
      (i) => asText(i.output),
    ),
  outputSchema: (req) => req.body.text?.format?.schema,
  objectReply(value, req) {
    return this.reply({ text: JSON.stringify(value), usage: [10, 5] }, req);
  },
};

const anthropic: Protocol = {
  name: "anthropic",
  model: "claude-haiku-4-5",
  adapter: (url) => new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: url, env: {} }),
  streamed: (req) => req.body.stream === true,
  reply(turn, req) {
    const content = [
      ...(turn.text !== undefined ? [{ type: "text", text: turn.text }] : []),
      ...(turn.calls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
    ];
    const stop = (turn.calls ?? []).length > 0 ? "tool_use" : "end_turn";
    const [input, output] = turn.usage;
    return this.streamed(req)
      ? { kind: "sse", frames: anthropicFrames(streamEventsFor(content, stop, { input, output })) }
      : {
          kind: "json",
          body: anthropicMessage(content, stop, { input_tokens: input, output_tokens: output }),
        };
  },
  resultGroups: (req) =>
    (req.body.messages as { role: string; content: Record<string, unknown>[] }[])
      .filter((m) => m.role === "user")
      .map((m) => m.content.filter((b) => b.type === "tool_result").map((b) => asText(b.content)))
      .filter((g) => g.length > 0),
  outputSchema: (req) => {
    const choice = req.body.tool_choice as { type: string; name: string } | undefined;
    if (choice?.type !== "tool") return undefined;
    return (req.body.tools as { name: string; input_schema: unknown }[]).find((t) => t.name === choice.name)
      ?.input_schema;
  },
  objectReply(value, req) {
    const name = req.body.tool_choice.name as string;
    return this.reply(
      { calls: [{ id: "toolu_obj", name, args: value as Record<string, unknown> }], usage: [10, 5] },
      req,
    );
  },
};

const gemini: Protocol = {
  name: "gemini",
  model: "gemini-2.5-flash",
  adapter: (url) => new GeminiAdapter({ apiKey: "g-test", baseUrl: url, env: {} }),
  streamed: (req) => req.path.endsWith(":streamGenerateContent") && req.query.get("alt") === "sse",
  reply(turn, req) {
    // Gemini 2.5 sends function calls without ids: the adapter synthesizes them.
    const parts = [
      ...(turn.text !== undefined ? [{ text: turn.text }] : []),
      ...(turn.calls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.args } })),
    ];
    const usage = usageMetadata(...turn.usage);
    return this.streamed(req)
      ? { kind: "sse", frames: streamChunkFrames(parts, usage) }
      : { kind: "json", body: generateContentBody(parts, usage) };
  },
  resultGroups: (req) =>
    (req.body.contents as { role: string; parts: Record<string, { response?: unknown }>[] }[])
      .filter((c) => c.role === "user")
      .map((c) => c.parts.filter((p) => p.functionResponse).map((p) => asText(p.functionResponse?.response)))
      .filter((g) => g.length > 0),
  outputSchema: (req) =>
    req.body.generationConfig?.responseMimeType === "application/json"
      ? req.body.generationConfig.responseJsonSchema
      : undefined,
  objectReply(value, req) {
    return this.reply({ text: JSON.stringify(value), usage: [10, 5] }, req);
  },
};

const compatible: Protocol = {
  name: "openai-compatible",
  model: "qwen3:8b",
  adapter: (url) => new OpenAICompatibleAdapter({ baseUrl: `${url}/v1`, env: {} }),
  streamed: (req) => req.body.stream === true,
  reply(turn, req) {
    const calls = (turn.calls ?? []).map((c) => ({ id: c.id, name: c.name, args: JSON.stringify(c.args) }));
    const c: Completion = {
      id: `chatcmpl-${req.body.messages.length}`,
      content: turn.text ?? null,
      ...(calls.length > 0 && { calls }),
      finish: calls.length > 0 ? "tool_calls" : "stop",
      usage: chatUsage(...turn.usage),
    };
    return this.streamed(req)
      ? { kind: "sse", frames: chunkFrames(c) }
      : { kind: "json", body: completionBody(c) };
  },
  resultGroups: (req) =>
    runs(
      req.body.messages as Record<string, unknown>[],
      (m) => m.role === "tool",
      (m) => asText(m.content),
    ),
  outputSchema: (req) =>
    req.body.response_format?.type === "json_schema"
      ? req.body.response_format.json_schema.schema
      : undefined,
  objectReply(value, req) {
    return this.reply({ text: JSON.stringify(value), usage: [10, 5] }, req);
  },
};

const PROTOCOLS: readonly Protocol[] = [openai, anthropic, gemini, compatible];

// Three tool rounds, then the answer: two parallel weather calls, then one time call per city.
const SCRIPT: readonly Turn[] = [
  {
    calls: [
      { id: "call_sf", name: "get_weather", args: { city: "San Francisco" } },
      { id: "call_ny", name: "get_weather", args: { city: "New York" } },
    ],
    usage: [50, 20],
  },
  {
    text: "Now the local time.",
    calls: [{ id: "call_time", name: "get_time", args: { city: "San Francisco" } }],
    usage: [90, 10],
  },
  { calls: [{ id: "call_time_ny", name: "get_time", args: { city: "New York" } }], usage: [100, 8] },
  { text: "Foggy at 09:00 in San Francisco, sunny at 12:00 in New York.", usage: [120, 12] },
];
const FINAL = SCRIPT[3]!;
const FINAL_TEXT = FINAL.text!;

const weather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
  execute: async ({ city }: { city: string }) => ({
    city,
    forecast: city === "San Francisco" ? "fog" : "sun",
  }),
});
const clock = tool({
  name: "get_time",
  description: "Local time in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: ({ city }: { city: string }) => (city === "San Francisco" ? "09:00" : "12:00"),
});

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(() => server.close());

/** Answers each request with the turn that follows the tool results it carries. */
function scripted(p: Protocol) {
  return (req: RecordedRequest): Reply => {
    const results = p.resultGroups(req).flat().length;
    return p.reply(SCRIPT[[0, 2, 3, 4].indexOf(results)]!, req);
  };
}

function setup(p: Protocol, handler: ((req: RecordedRequest) => Reply) | readonly Reply[]) {
  server.requests.length = 0;
  server.setHandler(handler);
  return new Client({ providers: { [p.name]: p.adapter(server.url) } });
}

const FAST_RETRY = { baseDelayMs: 1, jitter: false } as const;

function expectToolRounds(p: Protocol): void {
  expect(server.requests).toHaveLength(4);
  expect(p.resultGroups(server.requests[0]!)).toEqual([]);
  // Both results of the parallel calls in one continuation, in call order.
  const second = p.resultGroups(server.requests[1]!);
  expect(second).toHaveLength(1);
  expect(second[0]![0]).toContain("fog");
  expect(second[0]![1]).toContain("sun");
  const last = p.resultGroups(server.requests[3]!);
  expect(last.map((g) => g.length)).toEqual([2, 1, 1]);
  expect(last[1]![0]).toContain("09:00");
  expect(last[2]![0]).toContain("12:00");
}

describe.each(PROTOCOLS)("$name over the wire", (p) => {
  it("generate() runs three tool rounds, parallel calls first, then answers; usage per step and total", async () => {
    const client = setup(p, scripted(p));
    const result = await generate({
      client,
      model: p.model,
      prompt: "Weather and time in San Francisco, weather in New York?",
      tools: [weather, clock],
      maxToolRounds: 3,
    });
    expectToolRounds(p);
    expect(result.steps.map((s) => s.toolCalls.map((c) => c.name))).toEqual([
      ["get_weather", "get_weather"],
      ["get_time"],
      ["get_time"],
      [],
    ]);
    const [first] = result.steps;
    expect(first!.toolResults.map((r) => r.toolCallId)).toEqual(first!.toolCalls.map((c) => c.id));
    expect(first!.toolResults.map((r) => r.content)).toEqual([
      { city: "San Francisco", forecast: "fog" },
      { city: "New York", forecast: "sun" },
    ]);
    expect(result.steps.map((s) => [s.usage.inputTokens, s.usage.outputTokens])).toEqual([
      [50, 20],
      [90, 10],
      [100, 8],
      [120, 12],
    ]);
    expect(result.text).toBe(FINAL_TEXT);
    expect(result.finishReason.reason).toBe("stop");
    expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 12 });
    expect(result.totalUsage).toMatchObject({ inputTokens: 360, outputTokens: 50, totalTokens: 410 });
  });

  it("stream() runs the same loop over SSE: streamed call arguments, step_finish between steps", async () => {
    const client = setup(p, scripted(p));
    const s = stream({
      client,
      model: p.model,
      prompt: "Weather and time in San Francisco, weather in New York?",
      tools: [weather, clock],
      maxToolRounds: 3,
    });
    const events: StreamEvent[] = [];
    let steps = 0;
    for await (const e of s) {
      if (e.type === "step_finish") {
        steps++;
        events.length = 0;
      } else events.push(e);
    }
    expect(steps).toBe(3);
    expect(server.requests.every((r) => p.streamed(r))).toBe(true);
    expectToolRounds(p);
    const text = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(1);
    expect(text).toBe(FINAL_TEXT);
    const final = await s.result();
    expect(final.text).toBe(FINAL_TEXT);
    expect(final.steps.map((st) => st.toolCalls.length)).toEqual([2, 1, 1, 0]);
    expect(final.totalUsage).toMatchObject({ inputTokens: 360, outputTokens: 50 });
  });

  it("streams tool calls start / delta / end, arguments concatenating to the final ones", async () => {
    const client = setup(p, scripted(p));
    const request: Request = {
      model: p.model,
      messages: [userMessage("Weather in San Francisco and New York?")],
      tools: [weather, clock].map(({ name, description, parameters }) => ({ name, description, parameters })),
    };
    const events: StreamEvent[] = [];
    for await (const e of client.stream(request)) events.push(e);
    const ends = events.flatMap((e) => (e.type === "tool_call_end" ? [e.toolCall] : []));
    expect(ends.map((c) => c.arguments)).toEqual([{ city: "San Francisco" }, { city: "New York" }]);
    for (const call of ends) {
      const start = events.findIndex((e) => e.type === "tool_call_start" && e.id === call.id);
      const end = events.findIndex((e) => e.type === "tool_call_end" && e.toolCall.id === call.id);
      expect(start).toBeGreaterThanOrEqual(0);
      expect(start).toBeLessThan(end);
      const deltas = events.flatMap((e) =>
        e.type === "tool_call_delta" && e.id === call.id ? [e.argumentsDelta] : [],
      );
      // Gemini sends each call whole, so it has no deltas; the others stream the JSON in pieces.
      if (p.name === "gemini") expect(deltas).toEqual([]);
      else expect(JSON.parse(deltas.join(""))).toEqual(call.arguments);
    }
    const finish = events.at(-1);
    expect(finish?.type === "finish" && finish.finishReason.reason).toBe("tool_calls");
  });

  it("generateObject() sends the schema the protocol's way and returns the validated object", async () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, age: { type: "integer" } },
      required: ["name", "age"],
      additionalProperties: false,
    };
    const client = setup(p, (req) => p.objectReply({ name: "Alice", age: 30 }, req));
    const result = await generateObject<{ name: string; age: number }>({
      client,
      model: p.model,
      prompt: "Extract: Alice is 30 years old",
      schema,
      schemaName: "person",
    });
    expect(result.output).toEqual({ name: "Alice", age: 30 });
    expect(p.outputSchema(server.requests[0]!)).toEqual(schema);

    setup(p, (req) => p.objectReply({ name: "Alice" }, req));
    const err = await generateObject({ client, model: p.model, prompt: "Extract", schema }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NoObjectGeneratedError);
    expect(server.requests).toHaveLength(1);
  });

  it("generateObject() works with an ordinary schema that has an optional field", async () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, country: { type: "string" } },
      required: ["city"],
    };
    const client = setup(p, (req) => p.objectReply({ city: "Oslo" }, req));
    const result = await generateObject<{ city: string; country?: string }>({
      client,
      model: p.model,
      prompt: "Where? Oslo.",
      schema,
      schemaName: "place",
    });
    expect(result.output).toEqual({ city: "Oslo" });
    expect(p.outputSchema(server.requests[0]!)).toEqual(schema);
    // Strict mode would reject this schema, so the protocols that have it are told strict: false.
    const body = server.requests[0]!.body;
    const strict = body.text?.format?.strict ?? body.response_format?.json_schema?.strict;
    if (p.name === "openai" || p.name === "openai-compatible") expect(strict).toBe(false);
  });

  it("waits a Retry-After within the cap, and does not retry a longer one", async () => {
    const limited = (after: string): Reply => ({
      kind: "json",
      status: 429,
      headers: { "retry-after": after },
      body: { error: { code: 429, message: "Too many requests", status: "RESOURCE_EXHAUSTED" } },
    });
    const client = setup(p, (req) => (server.requests.length === 1 ? limited("0") : p.reply(FINAL, req)));
    const result = await generate({ client, model: p.model, prompt: "hi", retry: FAST_RETRY });
    expect(result.text).toBe(FINAL_TEXT);
    expect(server.requests).toHaveLength(2);

    setup(p, [limited("3600"), limited("3600")]);
    const err = await generate({ client, model: p.model, prompt: "hi", retry: FAST_RETRY }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(3600);
    expect(server.requests).toHaveLength(1);
  });

  it("never retries a stream cut after data arrived, but retries a failed connection", async () => {
    const client = setup(p, (req) => {
      const reply = p.reply(FINAL, req);
      if (reply.kind !== "sse") throw new Error("expected an SSE reply");
      return { ...reply, cutAfter: Math.ceil(reply.frames.length / 2) };
    });
    const seen: string[] = [];
    const s = stream({ client, model: p.model, prompt: "hi", retry: FAST_RETRY });
    const err = await (async () => {
      for await (const e of s) if (e.type === "text_delta") seen.push(e.delta);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamError);
    expect(seen.length).toBeGreaterThan(0);
    expect(FINAL_TEXT.startsWith(seen.join(""))).toBe(true);
    expect(server.requests).toHaveLength(1);

    setup(p, (req) =>
      server.requests.length === 1
        ? { kind: "json", status: 503, body: { error: { message: "overloaded", code: 503 } } }
        : p.reply(FINAL, req),
    );
    const retried = stream({ client, model: p.model, prompt: "hi", retry: FAST_RETRY });
    expect((await retried.result()).text).toBe(FINAL_TEXT);
    expect(server.requests).toHaveLength(2);
  });

  it("times out a silent request and a stalled stream with RequestTimeoutError", async () => {
    const client = setup(p, [{ kind: "hang" }]);
    const request: Request = { model: p.model, messages: [userMessage("hi")] };
    await expect(client.complete({ ...request, timeout: { requestMs: 150 } })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
    setup(p, (req) => {
      const reply = p.reply(FINAL, req);
      if (reply.kind !== "sse") throw new Error("expected an SSE reply");
      return { ...reply, stallAfter: 1 };
    });
    const drain = async () => {
      for await (const _ of client.stream({ ...request, timeout: { streamReadMs: 150 } }));
    };
    await expect(drain()).rejects.toBeInstanceOf(RequestTimeoutError);
  });
});
