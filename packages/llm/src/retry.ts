import { AbortError, SDKError } from "./errors.js";
import type { Request, StreamEvent } from "./types/index.js";

export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. Default 2. */
  readonly maxRetries?: number;
  /** Delay before the first retry, ms. Default 1000. */
  readonly baseDelayMs?: number;
  /** Longest delay, ms; a Retry-After above it is not waited for. Default 60 000. */
  readonly maxDelayMs?: number;
  /** Default 2. */
  readonly backoffMultiplier?: number;
  /** Multiply each computed delay by a random factor in [0.5, 1.5). Default true. */
  readonly jitter?: boolean;
  /** Called before each wait; attempt is 1 for the first retry. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  /** Overrides the built-in classification (see isRetryable). */
  readonly shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** Aborts the waits between attempts (the wait then fails with AbortError). */
  readonly signal?: AbortSignal;
  /** Injected for tests; a timer by default. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests; Math.random by default. */
  readonly random?: () => number;
}

export const DEFAULT_RETRY_POLICY = {
  maxRetries: 2,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  backoffMultiplier: 2,
  jitter: true,
} as const;

/**
 * Whether an error may go away on retry: an SDKError's own `retryable` flag; never an abort;
 * true for errors from outside this package, which the spec treats as unknown and retryable.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof AbortError) return false;
  if (error instanceof Error && error.name === "AbortError") return false;
  if (error instanceof SDKError) return error.retryable;
  return true;
}

/** The backoff before retry number `attempt` (1-based), before Retry-After is considered. */
export function backoffDelay(attempt: number, policy: RetryPolicy = {}): number {
  const base = policy.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs;
  const mult = policy.backoffMultiplier ?? DEFAULT_RETRY_POLICY.backoffMultiplier;
  const max = policy.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs;
  const delay = Math.min(base * mult ** (attempt - 1), max);
  const jitter = policy.jitter ?? DEFAULT_RETRY_POLICY.jitter;
  return jitter ? delay * (0.5 + (policy.random ?? Math.random)()) : delay;
}

/** Waits `ms`, failing with AbortError as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError("aborted while waiting to retry"));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError("aborted while waiting to retry"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

const retryAfterSeconds = (error: unknown): number | undefined => {
  const value = (error as { retryAfter?: unknown } | null)?.retryAfter;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
};

/**
 * Runs `fn`, retrying retryable failures with exponential backoff and jitter. A Retry-After
 * within maxDelayMs is waited exactly; a longer one ends retrying and the error (with its
 * retryAfter) is rethrown. The last error is rethrown when retries run out.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy = {}): Promise<T> {
  const maxRetries = policy.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries;
  const maxDelay = policy.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs;
  const sleep = policy.sleep ?? abortableSleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= maxRetries || policy.signal?.aborted) throw error;
      const retryable = policy.shouldRetry ? policy.shouldRetry(error, attempt + 1) : isRetryable(error);
      if (!retryable) throw error;
      const after = retryAfterSeconds(error);
      if (after !== undefined && after * 1000 > maxDelay) throw error;
      const delay = after !== undefined ? after * 1000 : backoffDelay(attempt + 1, policy);
      policy.onRetry?.(error, attempt + 1, delay);
      await sleep(delay, policy.signal);
    }
  }
}

/** Anything that streams a request, such as a Client. */
export interface StreamSource {
  stream(request: Request): AsyncIterable<StreamEvent>;
}

/**
 * Streams with retries of the connection only: an attempt that fails before its first event is
 * retried under the policy; once an event has been yielded, a failure propagates unretried.
 * The request's signal also aborts the waits between attempts.
 */
export async function* streamWithRetry(
  client: StreamSource,
  request: Request,
  policy: RetryPolicy = {},
): AsyncGenerator<StreamEvent> {
  const signal = policy.signal ?? request.signal;
  const { iterator, first } = await retry(
    async () => {
      const iterator = client.stream(request)[Symbol.asyncIterator]();
      try {
        return { iterator, first: await iterator.next() };
      } catch (err) {
        await iterator.return?.().catch(() => undefined);
        throw err;
      }
    },
    { ...policy, ...(signal !== undefined && { signal }) },
  );
  let finished = first.done === true;
  try {
    if (first.done) return;
    yield first.value;
    while (true) {
      const next = await iterator.next();
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // Close the underlying stream when the consumer stops early (break, return, error).
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
}
