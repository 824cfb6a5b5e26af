import {
  AnthropicAdapter,
  Client,
  GeminiAdapter,
  isRetryable,
  OpenAIAdapter,
  OpenAICompatibleAdapter,
  type ProviderAdapter,
  type RetryPolicy,
} from "@attractor/llm";
import type { ModelChoice } from "./provider-choice.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A Client holding only the chosen provider's adapter. Adapters import their SDK on first use,
 * so a run never loads the SDK of a provider it does not talk to.
 */
export function createModelClient(choice: ModelChoice, env: Env): Client {
  const options = { env, ...(choice.baseUrl !== undefined && { baseUrl: choice.baseUrl }) };
  let adapter: ProviderAdapter;
  switch (choice.provider) {
    case "anthropic":
      adapter = new AnthropicAdapter(options);
      break;
    case "openai":
      adapter = new OpenAIAdapter(options);
      break;
    case "gemini":
      adapter = new GeminiAdapter(options);
      break;
    case "openai-compatible":
      adapter = new OpenAICompatibleAdapter(options);
      break;
  }
  return new Client({ providers: { [choice.provider]: adapter } });
}

/** How model requests are retried after a transient failure (the `retry` settings key). */
export interface ModelRetrySettings {
  readonly maxRetries?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

/**
 * Retries of the CLI's model requests: longer than the library's defaults, so that a provider's
 * outage of half a minute (an overloaded or restarting service) is waited out rather than
 * reported: 2, 4, 8, 16 s with jitter.
 */
export const MODEL_RETRY_DEFAULTS = { maxRetries: 4, baseDelayMs: 2000, maxDelayMs: 30_000 } as const;

/** One retry about to wait: which attempt, of how many, how long, and why. */
export interface ModelRetry {
  readonly attempt: number;
  readonly maxRetries: number;
  readonly delayMs: number;
  /** The failure's message. */
  readonly reason: string;
}

/** The retry policy of model calls (defaults, then `settings`), reporting each retry. */
export function modelRetryPolicy(
  onRetry: (message: string, retry: ModelRetry) => void,
  settings: ModelRetrySettings = {},
): RetryPolicy & { readonly maxRetries: number } {
  const policy = { ...MODEL_RETRY_DEFAULTS, ...settings };
  return {
    ...policy,
    onRetry: (error, attempt, delayMs) => {
      const why = error instanceof Error ? error.message : String(error);
      onRetry(`Model request failed (${why}); retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s.`, {
        attempt,
        maxRetries: policy.maxRetries,
        delayMs: Math.round(delayMs),
        reason: why,
      });
    },
  };
}

/** The retries of a model request, shared by both ways it is tried again (see requestRetries). */
export interface RequestRetries {
  /** The policy for opening `request`'s stream (again): the retries left, numbered on from those used. */
  forStream(request: object): RetryPolicy;
  /** The session's policy for a stream broken mid-answer: it asks again while the request's retries last. */
  readonly midStream: RetryPolicy;
}

/**
 * One budget of retries per model request, whether its connection failed (the stream is opened
 * again) or its stream broke mid-answer (the session asks again, opening it anew): counted once,
 * from 1 to `policy.maxRetries`, so what the user is told ("retry 2 of 4") is one count, not one
 * per layer. `policy.onRetry` hears of the connection's retries, numbered in that count.
 */
export function requestRetries(policy: RetryPolicy & { readonly maxRetries: number }): RequestRetries {
  let current: { request: object | undefined; used: number } = { request: undefined, used: 0 };
  const budgetOf = (request: object) => {
    if (current.request !== request) current = { request, used: 0 };
    return current;
  };
  const { onRetry, ...timing } = policy;
  return {
    forStream(request) {
      const budget = budgetOf(request);
      return {
        ...timing,
        maxRetries: Math.max(0, policy.maxRetries - budget.used),
        onRetry: (error, _attempt, delayMs) => {
          budget.used++;
          onRetry?.(error, budget.used, delayMs);
        },
      };
    },
    midStream: {
      ...timing,
      // The request broken is the one opened last: its budget decides.
      shouldRetry: (error) => isRetryable(error) && current.used < policy.maxRetries,
      onRetry: () => {
        current.used++;
      },
    },
  };
}
