import { describe, expect, it } from "vitest";
import {
  AbortError,
  AuthenticationError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  StreamError,
} from "./errors.js";
import { abortableSleep, backoffDelay, isRetryable, retry, streamWithRetry } from "./retry.js";
import type { Request, StreamEvent } from "./types/index.js";

const rateLimited = (retryAfter?: number) =>
  new RateLimitError("slow down", {
    provider: "p",
    statusCode: 429,
    ...(retryAfter !== undefined && { retryAfter }),
  });

/** A failing-then-succeeding function that records its attempts. */
function flaky<T>(errors: unknown[], value: T) {
  const attempts: number[] = [];
  const fn = async (attempt: number) => {
    attempts.push(attempt);
    const err = errors.shift();
    if (err !== undefined) throw err;
    return value;
  };
  return { fn, attempts };
}

function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe("retry", () => {
  it("retries a 429 and returns the later success, waiting base × multiplier^n", async () => {
    const { fn, attempts } = flaky(
      [rateLimited(), new ServerError("boom", { provider: "p", statusCode: 503 })],
      "ok",
    );
    const { waits, sleep } = recordingSleep();
    const seen: [number, number][] = [];
    const result = await retry(fn, { sleep, jitter: false, onRetry: (_e, n, d) => seen.push([n, d]) });
    expect(result).toBe("ok");
    expect(attempts).toEqual([0, 1, 2]);
    expect(waits).toEqual([1000, 2000]);
    expect(seen).toEqual([
      [1, 1000],
      [2, 2000],
    ]);
  });

  it("applies jitter from the injected random in [0.5, 1.5) and caps at maxDelay", async () => {
    const randoms = [0, 0.5, 0.999];
    const { waits, sleep } = recordingSleep();
    const errors = [1, 2, 3, 4].map(() => new NetworkError("reset"));
    const { fn } = flaky(errors, "ok");
    await retry(fn, { sleep, maxRetries: 4, maxDelayMs: 3000, random: () => randoms.shift() ?? 0.5 });
    expect(waits).toEqual([500, 2000, 3000 * 1.499, 3000]);
    expect(backoffDelay(5, { jitter: false })).toBe(16_000);
    expect(backoffDelay(10, { jitter: false })).toBe(60_000);
  });

  it("waits exactly Retry-After when it is within maxDelay", async () => {
    const { waits, sleep } = recordingSleep();
    const { fn } = flaky([rateLimited(7)], "ok");
    await expect(retry(fn, { sleep, random: () => 0.9 })).resolves.toBe("ok");
    expect(waits).toEqual([7000]);
  });

  it("does not retry when Retry-After exceeds maxDelay, rethrowing with retryAfter set", async () => {
    const { waits, sleep } = recordingSleep();
    const { fn, attempts } = flaky([rateLimited(120)], "ok");
    const err = await retry(fn, { sleep }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(120);
    expect(attempts).toEqual([0]);
    expect(waits).toEqual([]);
  });

  it("gives up after maxRetries with the last error, and maxRetries 0 disables retrying", async () => {
    const { sleep } = recordingSleep();
    const last = new ServerError("third", { provider: "p" });
    const three = flaky([new NetworkError("1"), new NetworkError("2"), last], "ok");
    await expect(retry(three.fn, { sleep })).rejects.toBe(last);
    expect(three.attempts).toEqual([0, 1, 2]);

    const once = flaky([rateLimited()], "ok");
    await expect(retry(once.fn, { sleep, maxRetries: 0 })).rejects.toBeInstanceOf(RateLimitError);
    expect(once.attempts).toEqual([0]);
  });

  it("raises 401, 404, timeouts and aborts immediately", async () => {
    const { sleep, waits } = recordingSleep();
    for (const err of [
      new AuthenticationError("bad key", { provider: "p", statusCode: 401 }),
      new NotFoundError("no model", { provider: "p", statusCode: 404 }),
      new RequestTimeoutError("slow"),
      new AbortError("stop"),
    ]) {
      const { fn, attempts } = flaky([err], "ok");
      await expect(retry(fn, { sleep })).rejects.toBe(err);
      expect(attempts).toEqual([0]);
    }
    expect(waits).toEqual([]);
  });

  it("treats foreign errors as retryable and lets shouldRetry override", async () => {
    expect(isRetryable(new TypeError("fetch failed"))).toBe(true);
    expect(isRetryable(Object.assign(new Error("x"), { name: "AbortError" }))).toBe(false);
    const { sleep } = recordingSleep();
    const { fn } = flaky([new RequestTimeoutError("slow")], "ok");
    await expect(retry(fn, { sleep, shouldRetry: (e) => e instanceof RequestTimeoutError })).resolves.toBe(
      "ok",
    );
  });

  it("stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    const { fn, attempts } = flaky([new NetworkError("down")], "ok");
    const pending = retry(fn, { signal: controller.signal, baseDelayMs: 60_000, jitter: false });
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(attempts).toEqual([0]);
    await expect(abortableSleep(10, AbortSignal.abort())).rejects.toBeInstanceOf(AbortError);
  });
});

describe("streamWithRetry", () => {
  const request: Request = { model: "m", messages: [] };
  const ev = (delta: string): StreamEvent => ({ type: "text_delta", textId: "t", delta });

  /** A source whose nth stream() throws errors[n] after yielding prefix[n]. */
  function source(plan: { events: StreamEvent[]; error?: unknown }[]) {
    let opened = 0;
    return {
      get opened() {
        return opened;
      },
      stream(_r: Request): AsyncIterable<StreamEvent> {
        const step = plan[opened++] ?? { events: [] };
        return (async function* () {
          yield* step.events;
          if (step.error !== undefined) throw step.error;
        })();
      },
    };
  }

  it("retries a connection that fails before its first event", async () => {
    const src = source([{ events: [], error: new NetworkError("refused") }, { events: [ev("a"), ev("b")] }]);
    const { sleep, waits } = recordingSleep();
    const out: StreamEvent[] = [];
    for await (const e of streamWithRetry(src, request, { sleep, jitter: false })) out.push(e);
    expect(out).toEqual([ev("a"), ev("b")]);
    expect(src.opened).toBe(2);
    expect(waits).toEqual([1000]);
  });

  it("never retries once an event has been yielded", async () => {
    const broken = new StreamError("connection reset");
    const src = source([{ events: [ev("a")], error: broken }, { events: [ev("never")] }]);
    const { sleep } = recordingSleep();
    const out: StreamEvent[] = [];
    const err = await (async () => {
      for await (const e of streamWithRetry(src, request, { sleep })) out.push(e);
    })().catch((e: unknown) => e);
    expect(err).toBe(broken);
    expect(out).toEqual([ev("a")]);
    expect(src.opened).toBe(1);
  });

  it("does not retry a non-retryable connection error", async () => {
    const src = source([
      { events: [], error: new AuthenticationError("no", { provider: "p", statusCode: 401 }) },
    ]);
    const it = streamWithRetry(src, request, { sleep: async () => {} });
    await expect(it.next()).rejects.toBeInstanceOf(AuthenticationError);
    expect(src.opened).toBe(1);
  });
});
