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

/** The retry policy of model calls: the library's defaults, reporting each retry. */
export function modelRetryPolicy(onRetry: (message: string) => void): RetryPolicy {
  return {
    onRetry: (error, attempt, delayMs) => {
      const why = error instanceof Error ? error.message : String(error);
      onRetry(`Model request failed (${why}); retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s.`);
    },
  };
}
