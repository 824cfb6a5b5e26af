import {
  AnthropicAdapter,
  Client,
  GeminiAdapter,
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
): RetryPolicy {
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
