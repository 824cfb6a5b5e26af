import {
  AbortError,
  errorFromHttp,
  NetworkError,
  RequestTimeoutError,
  type SDKError,
  SDKError as SDKErrorClass,
  StreamError,
} from "../../errors.js";
import type { ConnectCall } from "../shared/connection-pool.js";

const PROVIDER = "anthropic";

/** An SDK error class, only used with instanceof. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** The SDK's error classes we tell apart; taken from the loaded module so the SDK stays lazy. */
export interface SdkErrorClasses {
  readonly APIError: ErrorClass;
  readonly APIUserAbortError: ErrorClass;
  readonly APIConnectionError: ErrorClass;
  readonly APIConnectionTimeoutError: ErrorClass;
}

/** The HTTP status each Anthropic error type stands for, for errors that arrive inside a stream. */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** Where the failure happened: before the response arrived, or while reading the stream. */
export type Phase = "request" | "stream";

interface ApiErrorShape {
  readonly status?: number;
  readonly error?: unknown;
  readonly headers?: { get(name: string): string | null };
  readonly message: string;
}

/** The body text the SDK folded into its message when the body was not JSON. */
const textBody = (err: ApiErrorShape): string | undefined => {
  const m = /^\d{3} (.*)$/s.exec(err.message);
  return m?.[1];
};

/**
 * Maps anything the SDK threw to our hierarchy. HTTP errors go through errorFromHttp (status
 * table, body message classification, Retry-After, raw body). An `error` event inside a stream
 * (the SDK throws it as a status-less APIError) is mapped as if its error type's status had been
 * returned, so an overloaded_error is a ServerError with statusCode 529 and the event as raw; the
 * retry policy never retries a stream that already produced data, whatever the class. A connect
 * timeout, which the SDK reports as its own timeout without the cause, is read off `connect`.
 */
export function mapAnthropicError(
  err: unknown,
  sdk: SdkErrorClasses,
  phase: Phase,
  signal?: AbortSignal,
  connect?: ConnectCall,
): SDKError {
  if (err instanceof SDKErrorClass) return err;
  if (signal?.aborted || err instanceof sdk.APIUserAbortError || (err as Error)?.name === "AbortError") {
    return new AbortError("request aborted", { cause: err });
  }
  if (connect?.failure !== undefined) return connect.failure;
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new RequestTimeoutError("anthropic request timed out", { cause: err, provider: PROVIDER });
  }
  if (err instanceof sdk.APIConnectionError) {
    const message = `anthropic connection failed: ${(err as Error).message}`;
    return phase === "stream"
      ? new StreamError(message, { cause: err, provider: PROVIDER })
      : new NetworkError(message, { cause: err });
  }
  if (err instanceof sdk.APIError) {
    const api = err as unknown as ApiErrorShape;
    if (typeof api.status === "number") {
      return errorFromHttp({
        provider: PROVIDER,
        status: api.status,
        body: api.error ?? textBody(api),
        headers: api.headers,
        cause: err,
      });
    }
    const body = api.error as { error?: { type?: unknown } } | undefined;
    const type = typeof body?.error?.type === "string" ? body.error.type : undefined;
    if (type !== undefined) {
      return errorFromHttp({
        provider: PROVIDER,
        status: STATUS_BY_ERROR_TYPE[type] ?? 500,
        body,
        headers: api.headers,
        cause: err,
      });
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  return phase === "stream"
    ? new StreamError(`anthropic stream failed: ${message}`, { cause: err, provider: PROVIDER })
    : new NetworkError(`anthropic request failed: ${message}`, { cause: err });
}
