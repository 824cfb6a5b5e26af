import { afterEach, describe, expect, it } from "vitest";
import { Client, type LazyAdapter } from "../src/client.js";
import { getDefaultClient, setDefaultClient } from "../src/default-client.js";
import { AuthenticationError, ConfigurationError } from "../src/errors.js";
import type { Middleware } from "../src/middleware.js";
import { requestMiddleware } from "../src/middleware.js";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { GeminiAdapter } from "../src/providers/gemini/index.js";
import { OpenAIAdapter } from "../src/providers/openai/index.js";
import { OpenAICompatibleAdapter } from "../src/providers/openai-compatible/index.js";
import { startWireServer } from "../src/testing/index.js";
import type { Request, StreamEvent } from "../src/types/index.js";
import { userMessage } from "../src/types/index.js";
import { ScriptedAdapter, textResponse } from "./support/scripted-adapter.js";

const req = (extra: Partial<Request> = {}): Request => ({
  model: "m",
  messages: [userMessage("hi")],
  ...extra,
});

const collect = async (events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> => {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
};

const named = (name: string) =>
  new ScriptedAdapter(() => ({ kind: "response", response: textResponse(name) }), { name });

describe("Client routing", () => {
  it("routes by request.provider and falls back to the first registered provider", async () => {
    const a = named("a");
    const b = named("b");
    const client = new Client({ providers: { a, b } });
    expect(client.defaultProvider).toBe("a");
    expect((await client.complete(req())).message.content).toEqual([{ kind: "text", text: "a" }]);
    expect((await client.complete(req({ provider: "b" }))).message.content).toEqual([
      { kind: "text", text: "b" },
    ]);
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(1);
  });

  it("uses an explicit default provider", async () => {
    const a = named("a");
    const b = named("b");
    const client = new Client({ providers: { a, b }, defaultProvider: "b" });
    await client.complete(req());
    expect(b.calls).toHaveLength(1);
    expect(a.calls).toHaveLength(0);
  });

  it("fails with ConfigurationError when no provider is registered, for complete and stream", async () => {
    const client = new Client({ providers: {} });
    await expect(client.complete(req())).rejects.toBeInstanceOf(ConfigurationError);
    const stream = client.stream(req());
    await expect(collect(stream)).rejects.toBeInstanceOf(ConfigurationError);
  });

  it("names the registered providers when asked for an unknown one", async () => {
    const client = new Client({ providers: { a: named("a"), b: named("b") } });
    await expect(client.complete(req({ provider: "nope" }))).rejects.toThrow(/unknown provider "nope".*a, b/);
    expect(() => new Client({ providers: { a: named("a") }, defaultProvider: "z" })).toThrow(
      ConfigurationError,
    );
  });

  it("stream() returns before anything is sent and yields the adapter's events", async () => {
    const a = named("a");
    const client = new Client({ providers: { a } });
    const stream = client.stream(req());
    expect(a.calls).toHaveLength(0);
    const events = await collect(stream);
    expect(events.at(-1)?.type).toBe("finish");
    expect(a.calls[0]?.method).toBe("stream");
  });

  it("close() closes every adapter", async () => {
    const a = named("a");
    const b = named("b");
    await new Client({ providers: { a, b } }).close();
    expect([a.closed, b.closed]).toEqual([true, true]);
  });
});

describe("Client.fromEnv", () => {
  it("registers only providers with keys, anthropic then openai then gemini, plus compat by base URL", () => {
    const client = Client.fromEnv({
      GEMINI_API_KEY: "g",
      OPENAI_API_KEY: "o",
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:1/v1",
    });
    expect(client.providers).toEqual(["openai", "gemini", "openai-compatible"]);
    expect(client.defaultProvider).toBe("openai");

    const all = Client.fromEnv({ OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a", GOOGLE_API_KEY: "g" });
    expect(all.providers).toEqual(["anthropic", "openai", "gemini"]);
    expect(all.defaultProvider).toBe("anthropic");
  });

  it("constructs the real adapters lazily, one per provider", async () => {
    const client = Client.fromEnv({
      ANTHROPIC_API_KEY: "a",
      OPENAI_API_KEY: "o",
      GEMINI_API_KEY: "g",
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:1/v1",
    });
    const loaded = await Promise.all(client.providers.map((p) => (client.adapter(p) as LazyAdapter).load()));
    expect(loaded[0]).toBeInstanceOf(AnthropicAdapter);
    expect(loaded[1]).toBeInstanceOf(OpenAIAdapter);
    expect(loaded[2]).toBeInstanceOf(GeminiAdapter);
    expect(loaded[3]).toBeInstanceOf(OpenAICompatibleAdapter);
    expect(await (client.adapter("openai") as LazyAdapter).load()).toBe(loaded[1]);
  });

  it("hands the environment to the adapters: keys and base URLs reach a local server", async () => {
    const server = await startWireServer(() => ({
      kind: "json",
      status: 401,
      body: {
        error: {
          code: 401,
          message: "Invalid API key",
          status: "UNAUTHENTICATED",
          type: "authentication_error",
        },
      },
    }));
    try {
      const client = Client.fromEnv({
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: server.url,
        OPENAI_API_KEY: "sk-openai-test",
        OPENAI_BASE_URL: `${server.url}/v1`,
        GEMINI_API_KEY: "gemini-test",
        GEMINI_BASE_URL: server.url,
      });
      for (const provider of ["anthropic", "openai", "gemini"]) {
        const err = await client.complete(req({ provider })).catch((e: unknown) => e);
        expect(err, provider).toBeInstanceOf(AuthenticationError);
        expect((err as AuthenticationError).provider).toBe(provider);
      }
      expect(server.requests.map((r) => r.path)).toEqual([
        "/v1/messages",
        "/v1/responses",
        expect.stringMatching(/\/models\/m:generateContent$/),
      ]);
      expect(server.requests[0]?.headers["x-api-key"]).toBe("sk-ant-test");
      expect(server.requests[1]?.headers.authorization).toBe("Bearer sk-openai-test");
    } finally {
      await server.close();
    }
  });

  it("registers nothing without keys, and then refuses to guess", async () => {
    const client = Client.fromEnv({ PATH: "/bin" });
    expect(client.providers).toEqual([]);
    await expect(client.complete(req())).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe("default client", () => {
  afterEach(() => setDefaultClient(undefined));

  it("is built lazily once and can be replaced", () => {
    const first = getDefaultClient();
    expect(getDefaultClient()).toBe(first);
    const mine = new Client({ providers: { a: named("a") } });
    setDefaultClient(mine);
    expect(getDefaultClient()).toBe(mine);
    setDefaultClient(undefined);
    expect(getDefaultClient()).not.toBe(mine);
  });
});

describe("middleware", () => {
  const tracer = (name: string, log: string[]): Middleware => ({
    name,
    async complete(request, next) {
      log.push(`${name}:request`);
      const response = await next({ ...request, metadata: { ...request.metadata, [name]: "1" } });
      log.push(`${name}:response`);
      return response;
    },
    async *stream(request, next) {
      log.push(`${name}:request`);
      for await (const event of next({ ...request, metadata: { ...request.metadata, [name]: "1" } })) {
        if (event.type === "text_delta") yield { ...event, delta: `${event.delta}${name}` };
        else yield event;
      }
      log.push(`${name}:response`);
    },
  });

  it("runs requests in registration order and responses in reverse, for complete", async () => {
    const log: string[] = [];
    const a = named("a");
    const client = new Client({
      providers: { a },
      middleware: ["m1", "m2", "m3"].map((n) => tracer(n, log)),
    });
    await client.complete(req());
    expect(log).toEqual([
      "m1:request",
      "m2:request",
      "m3:request",
      "m3:response",
      "m2:response",
      "m1:response",
    ]);
    expect(a.requests[0]?.metadata).toEqual({ m1: "1", m2: "1", m3: "1" });
  });

  it("wraps streams the same way, innermost middleware transforming events first", async () => {
    const log: string[] = [];
    const a = new ScriptedAdapter([
      {
        kind: "stream",
        events: [
          { type: "text_start", textId: "t" },
          { type: "text_delta", textId: "t", delta: "x" },
          { type: "text_end", textId: "t" },
        ],
      },
    ]);
    const client = new Client({
      providers: { a },
      middleware: ["m1", "m2", "m3"].map((n) => tracer(n, log)),
    });
    const events = await collect(client.stream(req()));
    expect(events.find((e) => e.type === "text_delta")).toMatchObject({ delta: "xm3m2m1" });
    expect(log).toEqual([
      "m1:request",
      "m2:request",
      "m3:request",
      "m3:response",
      "m2:response",
      "m1:response",
    ]);
    expect(a.requests[0]?.metadata).toEqual({ m1: "1", m2: "1", m3: "1" });
  });

  it("passes calls through a middleware that lacks a hook, and requestMiddleware rewrites both kinds", async () => {
    const a = named("a");
    const client = new Client({
      providers: { a },
      middleware: [{ name: "nothing" }, requestMiddleware((r) => ({ ...r, model: "rewritten" }))],
    });
    await client.complete(req());
    await collect(client.stream(req()));
    expect(a.requests.map((r) => r.model)).toEqual(["rewritten", "rewritten"]);
  });

  it("lets middleware reroute a request to another provider", async () => {
    const a = named("a");
    const b = named("b");
    const client = new Client({
      providers: { a, b },
      middleware: [requestMiddleware((r) => ({ ...r, provider: "b" }))],
    });
    await client.complete(req());
    expect(b.calls).toHaveLength(1);
    expect(a.calls).toHaveLength(0);
  });
});
