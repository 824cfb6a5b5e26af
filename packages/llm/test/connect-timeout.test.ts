import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ConnectTimeoutError, NetworkError, RequestTimeoutError } from "../src/errors.js";
import type { ProviderAdapter } from "../src/providers/adapter.js";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { GeminiAdapter } from "../src/providers/gemini/index.js";
import { OpenAIAdapter } from "../src/providers/openai/index.js";
import { OpenAICompatibleAdapter } from "../src/providers/openai-compatible/index.js";
import { isRetryable } from "../src/retry.js";
import {
  message as anthropicMessage,
  chatUsage,
  completionBody,
  generateContentBody,
  messageItem,
  type Reply,
  responseObject,
  startWireServer,
  usage,
  usageMetadata,
  type WireServer,
} from "../src/testing/index.js";
import { type Request, type TimeoutConfig, userMessage } from "../src/types/index.js";
import { startUnacceptingListener, type UnacceptingListener } from "./support/unaccepting-listener.js";

// A connection that never comes up must fail after `connectMs` as ConnectTimeoutError (a
// retryable network error), not wait for the request timeout; and the connections an adapter
// opens are pooled: reused across calls, and closed with the adapter.

interface Protocol {
  readonly name: string;
  readonly model: string;
  adapter(url: string, timeout?: TimeoutConfig): ProviderAdapter;
  /** A complete response whose text is "pooled". */
  readonly ok: Reply;
}

const PROTOCOLS: readonly Protocol[] = [
  {
    name: "openai",
    model: "gpt-5.2",
    adapter: (url, timeout) =>
      new OpenAIAdapter({ apiKey: "sk-test", baseUrl: `${url}/v1`, env: {}, ...(timeout && { timeout }) }),
    ok: { kind: "json", body: responseObject("resp_1", [messageItem("msg_1", "pooled")], usage(3, 1)) },
  },
  {
    name: "anthropic",
    model: "claude-haiku-4-5",
    adapter: (url, timeout) =>
      new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: url, env: {}, ...(timeout && { timeout }) }),
    ok: { kind: "json", body: anthropicMessage([{ type: "text", text: "pooled" }], "end_turn") },
  },
  {
    name: "gemini",
    model: "gemini-2.5-flash",
    adapter: (url, timeout) =>
      new GeminiAdapter({ apiKey: "g-test", baseUrl: `${url}/v1beta`, env: {}, ...(timeout && { timeout }) }),
    ok: { kind: "json", body: generateContentBody([{ text: "pooled" }], usageMetadata(3, 1)) },
  },
  {
    name: "openai-compatible",
    model: "llama3.2",
    adapter: (url, timeout) =>
      new OpenAICompatibleAdapter({ baseUrl: `${url}/v1`, env: {}, ...(timeout && { timeout }) }),
    ok: {
      kind: "json",
      body: completionBody({ id: "chatcmpl-1", content: "pooled", finish: "stop", usage: chatUsage(3, 1) }),
    },
  },
];

const hi = (model: string, connectMs?: number): Request => ({
  model,
  messages: [userMessage("hi")],
  ...(connectMs !== undefined && { timeout: { connectMs } }),
});

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

describe.each(PROTOCOLS)("$name connect timeout", (p) => {
  let listener: UnacceptingListener;
  beforeAll(async () => {
    listener = await startUnacceptingListener();
  });
  afterAll(() => listener.close());

  const expectConnectTimeout = (err: unknown) => {
    expect(err).toBeInstanceOf(ConnectTimeoutError);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).not.toBeInstanceOf(RequestTimeoutError);
    const e = err as ConnectTimeoutError;
    expect(e).toMatchObject({
      name: "ConnectTimeoutError",
      provider: p.name,
      connectMs: 300,
      retryable: true,
    });
    expect(e.message).toContain(new URL(listener.url).host);
    expect(isRetryable(e)).toBe(true);
  };

  // The request timeout stays at its 120 s default: only the connect timeout can end these calls
  // before the test's own time limit.
  it("fails complete() with ConnectTimeoutError when the server never accepts", {
    timeout: 15_000,
  }, async () => {
    const adapter = p.adapter(listener.url);
    expectConnectTimeout(await failure(() => adapter.complete(hi(p.model, 300))));
    await adapter.close?.();
  });

  it("fails stream() the same way, with the timeout set on the adapter", { timeout: 15_000 }, async () => {
    const adapter = p.adapter(listener.url, { connectMs: 300 });
    const err = await failure(async () => {
      for await (const _ of adapter.stream(hi(p.model)));
    });
    expectConnectTimeout(err);
    await adapter.close?.();
  });
});

describe.each(PROTOCOLS)("$name connection pool", (p) => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer([]);
  });
  afterAll(() => server.close());

  it("reuses its connections across calls, closes them with the adapter, and reopens after", async () => {
    const calls = 6;
    server.setHandler(Array.from({ length: calls + 1 }, () => p.ok));
    const adapter = p.adapter(server.url);
    for (let i = 0; i < calls; i++) {
      const res = await adapter.complete(hi(p.model, 300));
      expect(res.message.content).toMatchObject([{ kind: "text", text: "pooled" }]);
    }
    // undici may hand a POST to a second idle connection while the first settles, never more.
    const pooled = server.connections.accepted;
    expect(pooled).toBeGreaterThan(0);
    expect(pooled).toBeLessThanOrEqual(2);
    expect(server.connections.open).toBe(pooled);
    await adapter.close?.();
    await vi.waitFor(() => expect(server.connections.open).toBe(0));
    const res = await adapter.complete(hi(p.model, 300));
    expect(res.message.content).toMatchObject([{ kind: "text", text: "pooled" }]);
    expect(server.connections.accepted).toBe(pooled + 1);
    await adapter.close?.();
  });
});

// The default connect timeout is the platform fetch's own 10 s: the one slow test that shows a
// call with no timeout configured still ends as ConnectTimeoutError, not at the request timeout.
describe("default connect timeout", () => {
  let listener: UnacceptingListener;
  beforeAll(async () => {
    listener = await startUnacceptingListener();
  });
  afterAll(() => listener.close());

  it("fails after about 10 s with ConnectTimeoutError through the platform fetch", {
    timeout: 25_000,
  }, async () => {
    const adapter = new OpenAICompatibleAdapter({ baseUrl: `${listener.url}/v1`, env: {} });
    const err = await failure(() => adapter.complete(hi("llama3.2")));
    expect(err).toBeInstanceOf(ConnectTimeoutError);
    expect(err).toMatchObject({ provider: "openai-compatible", connectMs: 10_000, retryable: true });
    await adapter.close?.();
  });
});
