import { describe, expect, it } from "vitest";
import { adviceFor, describeFailure } from "./error-advice.js";

const where = { provider: "anthropic", model: "claude-x", models: ["claude-a", "claude-b", "claude-x"] };

describe("advice for a failed model call", () => {
  it.each([
    ["AuthenticationError", 401, /ANTHROPIC_API_KEY/],
    ["AccessDeniedError", 403, /may not use claude-x/],
    ["NotFoundError", 404, /no model called claude-x\. Models it offers include claude-a, claude-b;/],
    ["RateLimitError", 429, /rate limit.*Wait a minute, then send the message again/],
    ["QuotaExceededError", 402, /quota or credit is used up/],
    ["ContextLengthError", 400, /\/compact/],
    ["ContentFilterError", 400, /content filter/],
    ["NetworkError", undefined, /check the network connection/],
    ["ConnectTimeoutError", undefined, /check the network connection/],
    ["ServerError", 503, /kept failing \(HTTP 503\) after every retry.*Wait a few minutes/],
    ["ServerError", 529, /is overloaded/],
  ] as const)("%s (%s) says what to do", (errorName, statusCode, expected) => {
    const advice = adviceFor(
      { errorName, message: "m", ...(statusCode !== undefined && { statusCode }) },
      where,
    );
    expect(advice).toMatch(expected);
  });

  it("goes by the status code when the error's kind is not one it knows", () => {
    expect(adviceFor({ errorName: "ProviderError", message: "m", statusCode: 502 }, where)).toMatch(
      /HTTP 502/,
    );
    expect(adviceFor({ errorName: "ProviderError", message: "m", statusCode: 401 }, where)).toMatch(
      /API key/,
    );
    expect(adviceFor({ errorName: "InvalidToolCallError", message: "m" }, where)).toBeUndefined();
  });

  it("puts the advice on the line after the message", () => {
    expect(describeFailure({ errorName: "RateLimitError", message: "slow down" }, where)).toMatch(
      /^RateLimitError: slow down\nThe provider is limiting/,
    );
  });
});
