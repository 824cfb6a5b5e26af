/** Base of every error this package throws. */
export class SDKError extends Error {
  override readonly name: string = "SDKError";
  /** Whether a retry of the same request may succeed. */
  readonly retryable: boolean = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface ProviderErrorFields {
  readonly provider: string;
  readonly statusCode?: number;
  readonly errorCode?: string;
  /** Seconds the provider asked us to wait (Retry-After). */
  readonly retryAfter?: number;
  /** The response body as received. */
  readonly raw?: unknown;
  readonly cause?: unknown;
}

/** An error reported by a provider. */
export class ProviderError extends SDKError {
  override readonly name: string = "ProviderError";
  override readonly retryable: boolean = false;
  readonly provider: string;
  readonly statusCode?: number;
  readonly errorCode?: string;
  readonly retryAfter?: number;
  readonly raw?: unknown;
  constructor(message: string, fields: ProviderErrorFields) {
    super(message, { cause: fields.cause });
    this.provider = fields.provider;
    if (fields.statusCode !== undefined) this.statusCode = fields.statusCode;
    if (fields.errorCode !== undefined) this.errorCode = fields.errorCode;
    if (fields.retryAfter !== undefined) this.retryAfter = fields.retryAfter;
    if (fields.raw !== undefined) this.raw = fields.raw;
  }
}

export class AuthenticationError extends ProviderError {
  override readonly name = "AuthenticationError";
}
export class AccessDeniedError extends ProviderError {
  override readonly name = "AccessDeniedError";
}
export class NotFoundError extends ProviderError {
  override readonly name = "NotFoundError";
}
export class InvalidRequestError extends ProviderError {
  override readonly name = "InvalidRequestError";
}
export class RateLimitError extends ProviderError {
  override readonly name = "RateLimitError";
  override readonly retryable = true;
}
export class ServerError extends ProviderError {
  override readonly name = "ServerError";
  override readonly retryable = true;
}
export class ContentFilterError extends ProviderError {
  override readonly name = "ContentFilterError";
}
export class ContextLengthError extends ProviderError {
  override readonly name = "ContextLengthError";
}
export class QuotaExceededError extends ProviderError {
  override readonly name = "QuotaExceededError";
}
/** A provider error we could not classify; retryable by default, as the spec prescribes. */
export class UnknownProviderError extends ProviderError {
  override readonly name = "UnknownProviderError";
  override readonly retryable = true;
}

/** HTTP 408, or our own request or stream-read timeout. Not retried by default. */
export class RequestTimeoutError extends SDKError {
  override readonly name = "RequestTimeoutError";
  readonly provider?: string;
  constructor(message: string, options?: { cause?: unknown; provider?: string }) {
    super(message, options);
    if (options?.provider !== undefined) this.provider = options.provider;
  }
}
/** The caller aborted the request. */
export class AbortError extends SDKError {
  override readonly name = "AbortError";
}
/** The connection failed before a response arrived. */
export class NetworkError extends SDKError {
  override readonly name: string = "NetworkError";
  override readonly retryable = true;
}
/**
 * No connection to the server within the connect timeout (`TimeoutConfig.connectMs`). A
 * connection failure, so retryable like any NetworkError, unlike a RequestTimeoutError.
 */
export class ConnectTimeoutError extends NetworkError {
  override readonly name = "ConnectTimeoutError";
  readonly provider?: string;
  /** The connect timeout that ran out, ms. */
  readonly connectMs?: number;
  constructor(message: string, options?: { cause?: unknown; provider?: string; connectMs?: number }) {
    super(message, options);
    if (options?.provider !== undefined) this.provider = options.provider;
    if (options?.connectMs !== undefined) this.connectMs = options.connectMs;
  }
}
/**
 * The stream broke after it started. Retryable as an error class, but never retried by the
 * client once data has arrived (see retry.ts).
 */
export class StreamError extends SDKError {
  override readonly name = "StreamError";
  override readonly retryable = true;
  readonly provider?: string;
  constructor(message: string, options?: { cause?: unknown; provider?: string }) {
    super(message, options);
    if (options?.provider !== undefined) this.provider = options.provider;
  }
}
export class InvalidToolCallError extends SDKError {
  override readonly name = "InvalidToolCallError";
}
export class UnsupportedToolChoiceError extends SDKError {
  override readonly name = "UnsupportedToolChoiceError";
}
export class NoObjectGeneratedError extends SDKError {
  override readonly name = "NoObjectGeneratedError";
  /** The text the model produced instead of a valid object. */
  readonly text?: string;
  constructor(message: string, options?: { cause?: unknown; text?: string }) {
    super(message, options);
    if (options?.text !== undefined) this.text = options.text;
  }
}
export class ConfigurationError extends SDKError {
  override readonly name = "ConfigurationError";
}

type ProviderErrorClass = new (message: string, fields: ProviderErrorFields) => ProviderError;

const MESSAGE_RULES: readonly [RegExp, ProviderErrorClass][] = [
  [
    /context[ _-]?(length|window)|too many tokens|maximum context|prompt is too long|input is too long/i,
    ContextLengthError,
  ],
  [/quota|billing|insufficient[_ ]funds|credit balance/i, QuotaExceededError],
  [/content[ _-]?filter|safety|blocked by policy/i, ContentFilterError],
  [/unauthori[sz]ed|invalid[ _-]?(api[ _-]?)?key|authentication/i, AuthenticationError],
  [/not[ _]found|does not exist|unknown model/i, NotFoundError],
];

/** Classifies an error by its message alone; undefined when nothing matches. */
export function classifyByMessage(message: string): ProviderErrorClass | undefined {
  return MESSAGE_RULES.find(([re]) => re.test(message))?.[1];
}

/** The error class for an HTTP status, per the spec's status table. */
export function classForStatus(status: number): ProviderErrorClass | typeof RequestTimeoutError {
  switch (status) {
    case 400:
    case 422:
      return InvalidRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return AccessDeniedError;
    case 404:
      return NotFoundError;
    case 408:
      return RequestTimeoutError;
    case 413:
      return ContextLengthError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? ServerError : UnknownProviderError;
  }
}

/** Parses a Retry-After header (seconds or HTTP date) into seconds; undefined when absent or invalid. */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

export interface HttpErrorInput {
  readonly provider: string;
  readonly status: number;
  /** The parsed JSON body, or the body text. */
  readonly body?: unknown;
  /** Header lookup (the fetch Headers object works). */
  readonly headers?: { get(name: string): string | null } | undefined;
  readonly cause?: unknown;
}

function bodyMessage(body: unknown): { message?: string; code?: string } {
  if (typeof body === "string") return { message: body };
  if (typeof body !== "object" || body === null) return {};
  const outer = body as Record<string, unknown>;
  const err = (Array.isArray(outer) ? outer[0]?.error : outer.error) ?? outer;
  if (typeof err === "string") return { message: err };
  if (typeof err !== "object" || err === null) return {};
  const e = err as Record<string, unknown>;
  const message = typeof e.message === "string" ? e.message : undefined;
  const codeValue = e.code ?? e.type ?? e.status;
  const code = typeof codeValue === "string" || typeof codeValue === "number" ? String(codeValue) : undefined;
  return { ...(message !== undefined && { message }), ...(code !== undefined && { code }) };
}

/**
 * Builds the right error for an HTTP error response: the status decides the class, the message
 * refines an ambiguous one (a 400 saying "context length" becomes ContextLengthError).
 */
export function errorFromHttp(input: HttpErrorInput): SDKError {
  const { message: bodyMsg, code } = bodyMessage(input.body);
  const message = `${input.provider} ${input.status}: ${bodyMsg ?? "request failed"}`;
  const retryAfter = parseRetryAfter(input.headers?.get("retry-after"));
  const byStatus = classForStatus(input.status);
  if (byStatus === RequestTimeoutError) {
    return new RequestTimeoutError(message, { cause: input.cause, provider: input.provider });
  }
  let cls = byStatus as ProviderErrorClass;
  const refinable = cls === InvalidRequestError || cls === UnknownProviderError || cls === NotFoundError;
  const byMessage = classifyByMessage(`${bodyMsg ?? ""} ${code ?? ""}`);
  if (refinable && byMessage !== undefined) cls = byMessage;
  if (cls === RateLimitError && /quota|billing|insufficient/i.test(`${bodyMsg ?? ""} ${code ?? ""}`)) {
    cls = QuotaExceededError;
  }
  return new cls(message, {
    provider: input.provider,
    statusCode: input.status,
    ...(code !== undefined && { errorCode: code }),
    ...(retryAfter !== undefined && { retryAfter }),
    ...(input.body !== undefined && { raw: input.body }),
    cause: input.cause,
  });
}

const GRPC_CLASSES: Readonly<Record<string, ProviderErrorClass | typeof RequestTimeoutError>> = {
  NOT_FOUND: NotFoundError,
  INVALID_ARGUMENT: InvalidRequestError,
  UNAUTHENTICATED: AuthenticationError,
  PERMISSION_DENIED: AccessDeniedError,
  RESOURCE_EXHAUSTED: RateLimitError,
  UNAVAILABLE: ServerError,
  DEADLINE_EXCEEDED: RequestTimeoutError,
  INTERNAL: ServerError,
};

/** The error class for a gRPC status name (Gemini reports these in `error.status`). */
export const classForGrpcStatus = (status: string) => GRPC_CLASSES[status];
