import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  AccessDeniedError,
  AuthenticationError,
  ContextLengthError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  ProviderError,
  QuotaExceededError,
  RateLimitError,
  RequestTimeoutError,
  type SDKError,
  ServerError,
  StreamError,
} from "../src/errors.js";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import {
  errorBody,
  frames,
  startWireServer,
  textStreamEvents,
  type WireServer,
} from "../src/testing/index.js";
import { type Request, type StreamEvent, userMessage } from "../src/types/index.js";

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

const request: Request = { model: "claude-test", messages: [userMessage("Hello")] };

async function failure(run: () => Promise<unknown>): Promise<SDKError> {
  try {
    await run();
  } catch (err) {
    return err as SDKError;
  }
  throw new Error("expected a failure");
}

async function drain(events: AsyncIterable<StreamEvent>, seen: StreamEvent[] = []): Promise<StreamEvent[]> {
  for await (const e of events) seen.push(e);
  return seen;
}

describe("HTTP errors", () => {
  const table: [number, string, string, new (...a: never[]) => Error, boolean][] = [
    [400, "invalid_request_error", "max_tokens: field required", InvalidRequestError, false],
    [
      400,
      "invalid_request_error",
      "prompt is too long: 210000 tokens > 200000 maximum",
      ContextLengthError,
      false,
    ],
    [401, "authentication_error", "invalid x-api-key", AuthenticationError, false],
    [402, "billing_error", "Your credit balance is too low", QuotaExceededError, false],
    [403, "permission_error", "not allowed to use this model", AccessDeniedError, false],
    [404, "not_found_error", "model: claude-nope", NotFoundError, false],
    [408, "timeout_error", "request timed out", RequestTimeoutError, false],
    [
      413,
      "request_too_large",
      "Request exceeds the maximum allowed number of bytes",
      ContextLengthError,
      false,
    ],
    [422, "invalid_request_error", "unprocessable", InvalidRequestError, false],
    [
      429,
      "rate_limit_error",
      "Number of request tokens has exceeded your per-minute rate limit",
      RateLimitError,
      true,
    ],
    [500, "api_error", "Internal server error", ServerError, true],
    [503, "api_error", "Service unavailable", ServerError, true],
    [529, "overloaded_error", "Overloaded", ServerError, true],
  ];

  it.each(table)(
    "%i %s (%s) → class, retryable flag and raw body, for complete and stream",
    async (status, type, text, cls, retryable) => {
      const body = errorBody(type, text);
      server.setHandler([
        { kind: "json", status, body },
        { kind: "json", status, body },
      ]);
      for (const run of [() => adapter.complete(request), () => drain(adapter.stream(request))]) {
        const err = await failure(run);
        expect(err).toBeInstanceOf(cls);
        expect(err.retryable).toBe(retryable);
        expect(err.message).toContain(text);
        if (err instanceof ProviderError) {
          expect(err.provider).toBe("anthropic");
          expect(err.statusCode).toBe(status);
          expect(err.errorCode).toBe(type);
          expect(err.raw).toEqual(body);
        }
      }
      expect(server.requests).toHaveLength(2);
    },
  );

  it("parses Retry-After into seconds on a 429", async () => {
    server.setHandler([
      {
        kind: "json",
        status: 429,
        body: errorBody("rate_limit_error", "slow down"),
        headers: { "retry-after": "17" },
      },
    ]);
    const err = await failure(() => adapter.complete(request));
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(17);
  });

  it("keeps a non-JSON error body as text", async () => {
    server.setHandler([{ kind: "text", status: 502, body: "<html>Bad gateway</html>" }]);
    const err = await failure(() => adapter.complete(request));
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).raw).toBe("<html>Bad gateway</html>");
  });

  it("never retries on its own", async () => {
    server.setHandler([
      { kind: "json", status: 529, body: errorBody("overloaded_error", "Overloaded") },
      { kind: "json", status: 529, body: errorBody("overloaded_error", "Overloaded") },
    ]);
    await failure(() => adapter.complete(request));
    expect(server.requests).toHaveLength(1);
  });
});

describe("transport failures", () => {
  it("fails at request time, not construction, without a key, naming the variable", async () => {
    const keyless = new AnthropicAdapter({ env: {}, baseUrl: server.url });
    const err = await failure(() => keyless.complete(request));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toContain("ANTHROPIC_API_KEY");
    expect(server.requests).toHaveLength(0);
  });

  it("reads the key and base URL from the given environment", async () => {
    server.setHandler([{ kind: "json", status: 401, body: errorBody("authentication_error", "bad key") }]);
    const fromEnv = new AnthropicAdapter({
      env: { ANTHROPIC_API_KEY: "env-key", ANTHROPIC_BASE_URL: `${server.url}/v1/` },
    });
    await failure(() => fromEnv.complete(request));
    expect(server.requests[0]?.path).toBe("/v1/messages");
    expect(server.requests[0]?.headers["x-api-key"]).toBe("env-key");
  });

  it("maps a refused connection to NetworkError", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const dead = new AnthropicAdapter({ apiKey: "k", baseUrl: `http://127.0.0.1:${port}` });
    const err = await failure(() => dead.complete(request));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.retryable).toBe(true);
  });

  it("times out a request that gets no answer", async () => {
    server.setHandler([{ kind: "hang" }]);
    const err = await failure(() => adapter.complete({ ...request, timeout: { requestMs: 200 } }));
    expect(err).toBeInstanceOf(RequestTimeoutError);
  });

  it("aborts a pending complete() with AbortError", async () => {
    server.setHandler([{ kind: "hang" }]);
    const controller = new AbortController();
    const pending = failure(() => adapter.complete({ ...request, signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toBeInstanceOf(AbortError);
  });

  it("refuses an already-aborted signal without sending", async () => {
    const err = await failure(() => adapter.complete({ ...request, signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("stream failures", () => {
  it("throws the mapped error for an error event after data, with the event as raw", async () => {
    const overloaded = errorBody("overloaded_error", "Overloaded");
    const events = [...textStreamEvents.slice(0, 4), overloaded];
    server.setHandler([{ kind: "sse", frames: frames(events) }]);
    const seen: StreamEvent[] = [];
    const err = await failure(() => drain(adapter.stream(request), seen));
    expect(seen.some((e) => e.type === "text_delta")).toBe(true);
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).statusCode).toBe(529);
    expect((err as ServerError).errorCode).toBe("overloaded_error");
    expect((err as ServerError).raw).toEqual(overloaded);
    expect((err as ServerError).provider).toBe("anthropic");
  });

  it("throws StreamError when the socket is cut mid-stream", async () => {
    server.setHandler([{ kind: "sse", frames: frames(textStreamEvents), cutAfter: 4 }]);
    const seen: StreamEvent[] = [];
    const err = await failure(() => drain(adapter.stream(request), seen));
    expect(seen.length).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(StreamError);
    expect(err.retryable).toBe(true);
  });

  it("throws StreamError when the stream ends without message_stop", async () => {
    server.setHandler([{ kind: "sse", frames: frames(textStreamEvents.slice(0, -1)) }]);
    const err = await failure(() => drain(adapter.stream(request)));
    expect(err).toBeInstanceOf(StreamError);
    expect(err.message).toContain("message_stop");
  });

  it("aborts mid-stream promptly with AbortError", async () => {
    server.setHandler([{ kind: "sse", frames: frames(textStreamEvents), stallAfter: 4 }]);
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const pending = failure(async () => {
      for await (const e of adapter.stream({ ...request, signal: controller.signal })) {
        seen.push(e);
        if (e.type === "text_delta") controller.abort();
      }
    });
    const err = await pending;
    expect(err).toBeInstanceOf(AbortError);
    expect(seen.some((e) => e.type === "finish")).toBe(false);
  });

  it("fails with RequestTimeoutError when the stream goes silent", async () => {
    server.setHandler([{ kind: "sse", frames: frames(textStreamEvents), stallAfter: 3 }]);
    const err = await failure(() => drain(adapter.stream({ ...request, timeout: { streamReadMs: 150 } })));
    expect(err).toBeInstanceOf(RequestTimeoutError);
  });
});
