/** What went wrong with a model call, as the session's error event tells it. */
export interface FailureFacts {
  readonly errorName: string;
  readonly message: string;
  readonly statusCode?: number;
  /** True when the session closed because of it. */
  readonly fatal?: boolean;
}

/** Where the failure happened: the provider and model in use and the models the catalog lists for it. */
export interface FailureContext {
  readonly provider: string;
  readonly model: string;
  readonly models: readonly string[];
}

const KEY_VARIABLES: Readonly<Record<string, string>> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  gemini: "GEMINI_API_KEY",
  "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
};

/** Models named in the advice for a model that does not exist. */
const MODELS_LISTED = 6;

/**
 * A sentence telling the user what to do about a failed model call, by the kind of failure (key
 * refused, model unknown, rate limit, quota, provider failing or overloaded, network, context too
 * long, content filter); undefined when there is nothing better to say than the message.
 */
export function adviceFor(failure: FailureFacts, context: FailureContext): string | undefined {
  const status = failure.statusCode;
  const text = failure.message.toLowerCase();
  switch (failure.errorName) {
    case "AuthenticationError":
      return `The provider refused the API key: check ${KEY_VARIABLES[context.provider] ?? "the provider's API key variable"} (a key for ${context.provider}), then start attractor again; or choose another provider with --provider.`;
    case "AccessDeniedError":
      return `This key may not use ${context.model}: pick a model it can use with /model, or check the key's permissions in the provider's console.`;
    case "NotFoundError": {
      const known = context.models.filter((m) => m !== context.model).slice(0, MODELS_LISTED);
      return known.length > 0
        ? `${context.provider} has no model called ${context.model}. Models it offers include ${known.join(", ")}; switch with /model <id> (or /model to pick one).`
        : `${context.provider} has no model called ${context.model}: switch to one it serves with /model <id>.`;
    }
    case "RateLimitError":
      return "The provider is limiting how fast requests may come (rate limit); attractor already waited and retried. Wait a minute, then send the message again; a model with higher limits (/model) also helps.";
    case "QuotaExceededError":
      return "The account's quota or credit is used up: top it up in the provider's billing console, or switch provider or model (/model).";
    case "ContextLengthError":
      return "The conversation no longer fits the model's context window: run /compact to summarise it (or /clear to start over), then send the message again.";
    case "ContentFilterError":
      return "The provider's content filter blocked this request: rephrase the message, or leave out the material that tripped it.";
    case "NetworkError":
    case "ConnectTimeoutError":
    case "RequestTimeoutError":
      return "Could not reach the provider: check the network connection (and any proxy or base URL setting), then send the message again.";
    case "ServerError":
      return status === 529 || text.includes("overloaded")
        ? `${context.provider} is overloaded and kept refusing after every retry: wait a few minutes and send the message again, or switch to another model with /model.`
        : `${context.provider} kept failing${status !== undefined ? ` (HTTP ${status})` : ""} after every retry: the service has trouble right now. Wait a few minutes and send the message again, or switch model or provider (/model, --provider).`;
    case "StreamError":
      return "The answer's stream broke off: send the message again.";
  }
  if (status === 401) return adviceFor({ ...failure, errorName: "AuthenticationError" }, context);
  if (status === 404) return adviceFor({ ...failure, errorName: "NotFoundError" }, context);
  if (status === 429) return adviceFor({ ...failure, errorName: "RateLimitError" }, context);
  if (status !== undefined && status >= 500)
    return adviceFor({ ...failure, errorName: "ServerError" }, context);
  return undefined;
}

/** The transcript's line for a failed model call: what happened, then the advice. */
export function describeFailure(failure: FailureFacts, context: FailureContext): string {
  const advice = adviceFor(failure, context);
  const head = `${failure.errorName}: ${failure.message}`;
  return advice ? `${head}\n${advice}` : head;
}

/** An error event as the transcript gets it: with the advice worked out where the context is known. */
export type AdvisedFailure = FailureFacts & { readonly advice?: string };

/** `event` with `data.advice` added when it is a failed model call; other events unchanged. */
export function withAdvice<E extends { readonly kind: string }>(event: E, context: () => FailureContext): E {
  if (event.kind !== "error" || !("data" in event)) return event;
  const data = event.data as FailureFacts;
  const advice = adviceFor(data, context());
  return advice === undefined ? event : { ...event, data: { ...data, advice } };
}
