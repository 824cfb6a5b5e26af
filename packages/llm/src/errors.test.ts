import { describe, expect, it } from "vitest";
import {
  AccessDeniedError,
  AuthenticationError,
  ContentFilterError,
  ContextLengthError,
  classifyByMessage,
  errorFromHttp,
  InvalidRequestError,
  NotFoundError,
  type ProviderError,
  parseRetryAfter,
  QuotaExceededError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  UnknownProviderError,
} from "./errors.js";

const headers = (values: Record<string, string>) => ({
  get: (name: string) => values[name.toLowerCase()] ?? null,
});

describe("parseRetryAfter", () => {
  it("reads seconds, fractions and HTTP dates; ignores what it cannot read", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7);
    expect(parseRetryAfter(" 1.5 ", now)).toBe(1.5);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("-3", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("errorFromHttp", () => {
  const statusTable: [number, new (...a: never[]) => Error, boolean][] = [
    [400, InvalidRequestError, false],
    [401, AuthenticationError, false],
    [403, AccessDeniedError, false],
    [404, NotFoundError, false],
    [408, RequestTimeoutError, false],
    [413, ContextLengthError, false],
    [422, InvalidRequestError, false],
    [429, RateLimitError, true],
    [500, ServerError, true],
    [502, ServerError, true],
    [529, ServerError, true],
    [599, ServerError, true],
    [418, UnknownProviderError, true],
  ];
  it.each(statusTable)("maps %i to %o, retryable %s", (status, cls, retryable) => {
    const err = errorFromHttp({ provider: "p", status, body: { error: { message: "it failed" } } });
    expect(err).toBeInstanceOf(cls);
    expect(err.retryable).toBe(retryable);
    expect(err.message).toBe(`p ${status}: it failed`);
  });

  it("keeps the raw body, takes the code from error.code or error.type, and parses Retry-After", () => {
    const body = { error: { message: "slow down", type: "rate_limit_error", code: "rate_limit_exceeded" } };
    const err = errorFromHttp({
      provider: "p",
      status: 429,
      body,
      headers: headers({ "retry-after": "12" }),
    });
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({
      provider: "p",
      statusCode: 429,
      errorCode: "rate_limit_exceeded",
      retryAfter: 12,
      raw: body,
    });
    const typed = errorFromHttp({
      provider: "p",
      status: 400,
      body: { error: { message: "x", type: "bad" } },
    });
    expect((typed as ProviderError).errorCode).toBe("bad");
    const text = errorFromHttp({ provider: "p", status: 502, body: "<html>bad gateway</html>" });
    expect(text).toMatchObject({
      raw: "<html>bad gateway</html>",
      message: "p 502: <html>bad gateway</html>",
    });
  });

  it("refines an ambiguous status by the message, and a 429 about quota", () => {
    const cases: [number, string, new (...a: never[]) => Error][] = [
      [400, "This model's maximum context length is 128000 tokens", ContextLengthError],
      [400, "prompt is too long: 210000 tokens > 200000 maximum", ContextLengthError],
      [400, "Output blocked by content filter", ContentFilterError],
      [400, "Invalid API key provided", AuthenticationError],
      [422, "The model `x` does not exist", NotFoundError],
      [418, "unauthorized", AuthenticationError],
      [
        429,
        "You exceeded your current quota, please check your plan and billing details",
        QuotaExceededError,
      ],
      // An unambiguous status keeps its class whatever the message says.
      [401, "model not found", AuthenticationError],
      [500, "context length exceeded upstream", ServerError],
    ];
    for (const [status, message, cls] of cases) {
      const err = errorFromHttp({ provider: "p", status, body: { error: { message } } });
      expect([status, message, err]).toEqual([status, message, expect.any(cls)]);
    }
    expect(
      errorFromHttp({ provider: "p", status: 429, body: { error: { message: "quota" } } }).retryable,
    ).toBe(false);
  });
});

describe("classifyByMessage", () => {
  it("recognises the spec's phrases, and nothing else", () => {
    expect(classifyByMessage("Resource not found")).toBe(NotFoundError);
    expect(classifyByMessage("model does not exist")).toBe(NotFoundError);
    expect(classifyByMessage("Unauthorized")).toBe(AuthenticationError);
    expect(classifyByMessage("invalid key")).toBe(AuthenticationError);
    expect(classifyByMessage("too many tokens in the prompt")).toBe(ContextLengthError);
    expect(classifyByMessage("blocked for safety reasons")).toBe(ContentFilterError);
    expect(classifyByMessage("something odd happened")).toBeUndefined();
  });
});
