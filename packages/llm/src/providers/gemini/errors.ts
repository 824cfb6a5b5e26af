import {
  AbortError,
  AuthenticationError,
  ContextLengthError,
  classForGrpcStatus,
  errorFromHttp,
  InvalidRequestError,
  NetworkError,
  ProviderError,
  type ProviderErrorFields,
  RequestTimeoutError,
  SDKError,
  StreamError,
  UnknownProviderError,
} from "../../errors.js";
import type { ConnectCall } from "../shared/connection-pool.js";
import { PROVIDER } from "./request.js";

/** What the adapter saw of one HTTP exchange, for error mapping. */
export interface Exchange {
  /** The HTTP response, once headers arrived. */
  response?: globalThis.Response;
  /** The body text of a non-2xx response, read before the SDK consumed it. */
  errorBody?: Promise<string>;
  /** Whether fetch was called at all (an SDK validation error happens before). */
  sent: boolean;
  /** Set when our own timer aborted the request. */
  timedOut?: "request" | "stream";
  /** The connection settings of the request, whose `failure` tells of a connect timeout. */
  connect?: ConnectCall;
}

/** Where the failure happened: before the response started, or while reading the stream. */
export type Phase = "request" | "stream";

type ErrorClass = new (message: string, fields: ProviderErrorFields) => ProviderError;

/** Gemini-specific wordings that the shared message rules do not know. */
const GEMINI_MESSAGES: readonly [RegExp, ErrorClass][] = [
  [/API key not valid|API_KEY_INVALID|API key expired/i, AuthenticationError],
  [/exceeds the maximum number of tokens|input token count/i, ContextLengthError],
];

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The SDK folds the body into its error message; `got status: X. {json}` for stream error chunks. */
function bodyFromMessage(message: string): unknown {
  const direct = parseJson(message);
  if (direct !== undefined) return direct;
  const brace = message.indexOf("{");
  return brace >= 0 ? (parseJson(message.slice(brace)) ?? message) : message;
}

interface GeminiErrorBody {
  readonly status?: string;
  readonly message?: string;
  readonly reasons: readonly string[];
}

function errorBody(body: unknown): GeminiErrorBody {
  const outer = Array.isArray(body) ? body[0] : body;
  const err = (outer as { error?: unknown } | undefined)?.error;
  if (typeof err !== "object" || err === null) return { reasons: [] };
  const e = err as { status?: unknown; message?: unknown; details?: unknown };
  const reasons = Array.isArray(e.details)
    ? e.details.flatMap((d) => (typeof d?.reason === "string" ? [d.reason as string] : []))
    : [];
  return {
    ...(typeof e.status === "string" && { status: e.status }),
    ...(typeof e.message === "string" && { message: e.message }),
    reasons,
  };
}

/**
 * Builds the error for an HTTP error status: the status decides, then Gemini's gRPC status and
 * error reasons refine a generic class (a 400 INVALID_ARGUMENT saying "API key not valid" is an
 * authentication failure).
 */
export function geminiHttpError(
  status: number,
  body: unknown,
  headers: { get(name: string): string | null } | undefined,
  cause?: unknown,
): SDKError {
  const base = errorFromHttp({ provider: PROVIDER, status, body, headers, cause });
  if (!(base instanceof ProviderError)) return base;
  const info = errorBody(body);
  const text = `${info.message ?? ""} ${info.reasons.join(" ")}`;
  const generic = base instanceof InvalidRequestError || base instanceof UnknownProviderError;
  if (!generic) return base;
  let cls: ErrorClass | typeof RequestTimeoutError | undefined = GEMINI_MESSAGES.find(([re]) =>
    re.test(text),
  )?.[1];
  if (cls === undefined && info.status !== undefined && base.constructor === UnknownProviderError) {
    cls = classForGrpcStatus(info.status);
  }
  if (cls === undefined && info.status !== undefined && base.constructor === InvalidRequestError) {
    const byGrpc = classForGrpcStatus(info.status);
    if (byGrpc !== InvalidRequestError) cls = byGrpc;
  }
  if (cls === undefined) return base;
  if (cls === RequestTimeoutError)
    return new RequestTimeoutError(base.message, { cause, provider: PROVIDER });
  return new (cls as ErrorClass)(base.message, {
    provider: PROVIDER,
    ...(base.statusCode !== undefined && { statusCode: base.statusCode }),
    ...(base.errorCode !== undefined && { errorCode: base.errorCode }),
    ...(base.retryAfter !== undefined && { retryAfter: base.retryAfter }),
    ...(base.raw !== undefined && { raw: base.raw }),
    cause,
  });
}

const isApiError = (err: unknown): err is Error & { status: number } =>
  err instanceof Error && err.name === "ApiError" && typeof (err as { status?: unknown }).status === "number";

const isAbort = (err: unknown): boolean =>
  err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");

/** Maps anything the SDK or fetch threw into the SDKError hierarchy. */
export async function mapGeminiError(
  err: unknown,
  exchange: Exchange,
  phase: Phase,
  signal: AbortSignal | undefined,
): Promise<SDKError> {
  if (signal?.aborted) return new AbortError("gemini request aborted", { cause: err });
  if (exchange.connect?.failure !== undefined) return exchange.connect.failure;
  if (exchange.timedOut !== undefined) {
    const what = exchange.timedOut === "request" ? "request timed out" : "stream stalled";
    return new RequestTimeoutError(`gemini ${what}`, { cause: err, provider: PROVIDER });
  }
  if (err instanceof SDKError) return err;
  if (isApiError(err)) {
    const res = exchange.response;
    // A non-2xx response: take the body as the server sent it; otherwise an error chunk inside the stream.
    if (res !== undefined && !res.ok && exchange.errorBody !== undefined) {
      const text = await exchange.errorBody.catch(() => "");
      return geminiHttpError(res.status, parseJson(text) ?? text, res.headers, err);
    }
    return geminiHttpError(err.status, bodyFromMessage(err.message), undefined, err);
  }
  const message = err instanceof Error ? err.message : String(err);
  if (isAbort(err)) return new AbortError("gemini request aborted", { cause: err });
  if (!exchange.sent) {
    return new InvalidRequestError(`gemini request rejected before sending: ${message}`, {
      provider: PROVIDER,
      cause: err,
    });
  }
  if (phase === "stream" && exchange.response !== undefined) {
    return new StreamError(`gemini stream broke: ${message}`, { cause: err, provider: PROVIDER });
  }
  return new NetworkError(`gemini connection failed: ${message}`, { cause: err });
}
