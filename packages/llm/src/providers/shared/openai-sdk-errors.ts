import {
  AbortError,
  type ConnectTimeoutError,
  ContentFilterError,
  ContextLengthError,
  classifyByMessage,
  errorFromHttp,
  InvalidRequestError,
  NetworkError,
  type ProviderError,
  QuotaExceededError,
  RateLimitError,
  RequestTimeoutError,
  SDKError,
  ServerError,
  StreamError,
  UnknownProviderError,
} from "../../errors.js";

/** The `openai` package's module shape; a type only, so importing this file never loads the SDK. */
export type OpenAISdkModule = typeof import("openai");

/** Error bodies as received, keyed by the fetch Headers object the SDK hands to its error. */
export type ErrorBodies = WeakMap<object, string>;

/**
 * A fetch over `inner` that remembers the body text of every non-2xx response, because the SDK
 * keeps only `body.error` and drops bodies of other shapes (vLLM's `{detail}`, plain text from
 * proxies).
 */
export function bodyCapturingFetch(bodies: ErrorBodies, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.ok) {
      try {
        bodies.set(res.headers, await res.clone().text());
      } catch {
        // The SDK reads the body too and reports its own failure; nothing to add here.
      }
    }
    return res;
  };
}

/** What the adapter knows about the call when an error surfaces. */
export interface ErrorScene {
  readonly provider: string;
  readonly sdk: OpenAISdkModule | undefined;
  readonly bodies: ErrorBodies;
  /** The caller's signal fired. */
  readonly aborted: boolean;
  /** Set when one of our own deadlines fired; the error message. */
  readonly timedOut?: string;
  /**
   * Set when the connection was not up within the connect timeout: the SDK reports that as its
   * own timeout and drops the cause, so the fetch records it for us.
   */
  readonly connectFailure?: ConnectTimeoutError;
  /** At least one event was already yielded to the caller. */
  readonly streamStarted: boolean;
}

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const CODE_CLASSES: Readonly<Record<string, typeof ProviderError>> = {
  rate_limit_exceeded: RateLimitError,
  insufficient_quota: QuotaExceededError,
  context_length_exceeded: ContextLengthError,
  content_filter: ContentFilterError,
  server_error: ServerError,
};

/** Codes too general to decide alone: the message may say more (a context-length overflow). */
const GENERIC_CODE_CLASSES: Readonly<Record<string, typeof ProviderError>> = {
  invalid_request_error: InvalidRequestError,
  invalid_prompt: InvalidRequestError,
};

/**
 * Maps an error object that arrived inside a stream (`error` event, `response.failed`, or a
 * Chat Completions chunk with `error`) to a provider error, by its code first, then its message.
 */
export function errorFromStreamPayload(provider: string, payload: unknown, cause?: unknown): ProviderError {
  const p = (
    typeof payload === "object" && payload !== null ? payload : { message: String(payload) }
  ) as Record<string, unknown>;
  const message = typeof p.message === "string" ? p.message : "the provider reported an error";
  const codeValue = p.code ?? p.type;
  const code = typeof codeValue === "string" || typeof codeValue === "number" ? String(codeValue) : undefined;
  const cls =
    (code !== undefined ? CODE_CLASSES[code] : undefined) ??
    classifyByMessage(message) ??
    (code !== undefined ? GENERIC_CODE_CLASSES[code] : undefined) ??
    UnknownProviderError;
  return new cls(`${provider}: ${message}`, {
    provider,
    ...(code !== undefined && { errorCode: code }),
    raw: payload,
    ...(cause !== undefined && { cause }),
  });
}

/**
 * Maps anything the OpenAI SDK (or the stream under it) throws into the SDKError hierarchy:
 * HTTP errors by status and body, our abort, connect timeout and deadlines first, connection
 * failures to NetworkError, and breaks after the first yielded event to StreamError.
 */
export function mapOpenAISdkError(err: unknown, scene: ErrorScene): SDKError {
  // The caller's abort explains whatever broke after it, so it wins over the error's own kind.
  if (scene.aborted)
    return err instanceof AbortError ? err : new AbortError("the request was aborted", { cause: err });
  if (scene.connectFailure !== undefined) return scene.connectFailure;
  if (err instanceof SDKError) return err;
  const { provider, sdk } = scene;
  if (scene.timedOut !== undefined) return new RequestTimeoutError(scene.timedOut, { cause: err, provider });
  if (sdk !== undefined) {
    if (err instanceof sdk.APIConnectionTimeoutError) {
      return new RequestTimeoutError(`${provider}: the request timed out`, { cause: err, provider });
    }
    if (err instanceof sdk.APIUserAbortError)
      return new AbortError("the request was aborted", { cause: err });
    if (err instanceof sdk.APIConnectionError) {
      const detail = err.cause instanceof Error ? `: ${err.cause.message}` : "";
      return scene.streamStarted
        ? new StreamError(`${provider}: the stream broke${detail}`, { cause: err, provider })
        : new NetworkError(`${provider}: cannot reach the server${detail}`, { cause: err });
    }
    if (err instanceof sdk.APIError) {
      if (err.status === undefined)
        return errorFromStreamPayload(provider, err.error ?? { message: err.message }, err);
      const captured = err.headers !== undefined ? scene.bodies.get(err.headers) : undefined;
      const body =
        captured !== undefined
          ? parseBody(captured)
          : err.error !== undefined
            ? { error: err.error }
            : err.message;
      return errorFromHttp({ provider, status: err.status, body, headers: err.headers, cause: err });
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  // Unparseable event data means the stream itself is broken, whether or not anything was yielded.
  if (scene.streamStarted || err instanceof SyntaxError)
    return new StreamError(`${provider}: the stream broke: ${message}`, { cause: err, provider });
  return new NetworkError(`${provider}: request failed: ${message}`, { cause: err });
}
