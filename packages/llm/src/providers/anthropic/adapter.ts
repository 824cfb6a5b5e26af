import { AbortError, AuthenticationError, StreamError } from "../../errors.js";
import { withIdleTimeout } from "../../stream/index.js";
import type { Request, Response, StreamEvent, TimeoutConfig, Warning } from "../../types/index.js";
import { DEFAULT_TIMEOUTS } from "../../types/index.js";
import type { AdapterOptions, ProviderAdapter } from "../adapter.js";
import { ConnectionPool } from "../shared/connection-pool.js";
import { rateLimitFromHeaders } from "../shared/rate-limit.js";
import { mapAnthropicError } from "./errors.js";
import { buildMessagesRequest, providerToolWarnings } from "./request.js";
import { responseFromMessage } from "./response.js";
import { captureSdkWarnings } from "./sdk-warnings.js";
import { encodeBody } from "./serialize.js";
import { anthropicEventBatches } from "./sse.js";
import { StreamTranslator, type WireEvent } from "./stream.js";
import type { WireBody } from "./wire.js";

type Sdk = typeof import("@anthropic-ai/sdk");
type SdkClient = InstanceType<Sdk["Anthropic"]>;
/** How requests authenticate: an API key (`x-api-key`) or a bearer token (`Authorization`). */
type Credential = { readonly kind: "api-key" | "bearer"; readonly value: string };
interface Loaded {
  readonly sdk: Sdk;
  readonly client: SdkClient;
  readonly credential: Credential;
  readonly pool: ConnectionPool;
}

const PROVIDER = "anthropic";
const DEFAULT_BASE_URL = "https://api.anthropic.com";

export interface AnthropicAdapterOptions extends AdapterOptions {
  /**
   * A bearer token sent as `Authorization: Bearer …` instead of an API key (gateways and proxies);
   * ANTHROPIC_AUTH_TOKEN by default. An API key, when there is one, is used instead.
   */
  readonly authToken?: string;
  /** Defaults for every request; a request's own timeout overrides them field by field. */
  readonly timeout?: TimeoutConfig;
}

/** The SDK appends /v1/messages itself, so a base URL given with a trailing /v1 is trimmed. */
const normaliseBaseUrl = (url: string): string => url.replace(/\/+$/, "").replace(/\/v1$/, "");

/**
 * The Anthropic Messages API (`/v1/messages`) over the official SDK, which is imported on first
 * use. The SDK's retries are off; our timeouts, abort signal and error classes apply.
 */
export class AnthropicAdapter implements ProviderAdapter {
  readonly name = PROVIDER;
  private loaded?: Promise<Loaded>;

  constructor(private readonly options: AnthropicAdapterOptions = {}) {}

  /** Every tool-choice mode maps onto the Messages API. */
  supportsToolChoice(): boolean {
    return true;
  }

  /** Sends the request and returns the whole response. */
  async complete(request: Request): Promise<Response> {
    throwIfAborted(request.signal);
    const { sdk, client, credential, pool } = await this.load();
    const { body, headers } = await buildMessagesRequest(request);
    const timeouts = this.timeouts(request);
    const connect = pool.call(timeouts.connectMs);
    try {
      let sdkWarnings: readonly Warning[] = [];
      const started = captureSdkWarnings(() =>
        client.messages
          .create(sdkParams(body, false), {
            ...rawBody(body, false),
            headers: authHeaders(credential, { ...headers, ...JSON_CONTENT }),
            timeout: timeouts.requestMs,
            fetchOptions: pool.fetchOptions(connect) as never,
            ...(request.signal !== undefined && { signal: request.signal }),
          })
          .withResponse(),
      );
      sdkWarnings = [...providerToolWarnings(request), ...started.warnings];
      const { data, response } = await started.result;
      const result = responseFromMessage(
        data as unknown as WireEvent,
        rateLimitFromHeaders(response.headers),
      );
      return sdkWarnings.length === 0
        ? result
        : { ...result, warnings: [...result.warnings, ...sdkWarnings] };
    } catch (err) {
      throw mapAnthropicError(err, sdk, "request", request.signal, connect);
    }
  }

  /** Streams the response; ends with `finish`, or throws. */
  async *stream(request: Request): AsyncGenerator<StreamEvent> {
    throwIfAborted(request.signal);
    const { sdk, client, credential, pool } = await this.load();
    const { body, headers } = await buildMessagesRequest(request);
    const timeouts = this.timeouts(request);
    const connect = pool.call(timeouts.connectMs);
    // The call's own signal, tied to the caller's for as long as the call lasts: the SDK keeps a
    // listener on the signal it is given until the body is done with, which a long-lived caller's
    // signal would gather round after round.
    const call = new AbortController();
    const cancel = () => call.abort();
    request.signal?.addEventListener("abort", cancel, { once: true });
    try {
      let response: globalThis.Response;
      try {
        response = await openStream(client, body, {
          headers: authHeaders(credential, { ...headers, ...JSON_CONTENT }),
          timeout: timeouts.requestMs,
          fetchOptions: pool.fetchOptions(connect) as never,
          signal: call.signal,
        });
      } catch (err) {
        throw mapAnthropicError(err, sdk, "request", request.signal, connect);
      }
      const translator = new StreamTranslator(
        rateLimitFromHeaders(response.headers),
        providerToolWarnings(request),
      );
      try {
        const batches = withIdleTimeout(
          anthropicEventBatches(response, sdk),
          timeouts.streamReadMs,
          cancel,
          PROVIDER,
        );
        read: for await (const batch of batches) {
          for (const event of batch) {
            for (const out of translator.push(event as WireEvent)) yield out;
            if (translator.finished) break read;
          }
        }
      } catch (err) {
        throw mapAnthropicError(err, sdk, "stream", request.signal);
      }
      // An aborted read ends quietly, so an abort shows here as a missing message_stop.
      throwIfAborted(request.signal);
      if (!translator.finished) {
        throw new StreamError("anthropic stream ended before message_stop", { provider: PROVIDER });
      }
    } finally {
      request.signal?.removeEventListener("abort", cancel);
    }
  }

  /** Closes the adapter's connections; a later request opens new ones. */
  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    const ready = await loaded?.catch(() => undefined);
    await ready?.pool.close();
  }

  private timeouts(request: Request): Required<TimeoutConfig> {
    return { ...DEFAULT_TIMEOUTS, ...this.options.timeout, ...request.timeout };
  }

  /**
   * Loads the SDK and builds the client once, its requests sent through the
   * adapter's connection pool; a missing key fails here, at request time.
   */
  private load(): Promise<Loaded> {
    const env = this.options.env ?? process.env;
    const apiKey = this.options.apiKey ?? env.ANTHROPIC_API_KEY;
    const token = this.options.authToken ?? env.ANTHROPIC_AUTH_TOKEN;
    const credential: Credential | undefined =
      apiKey !== undefined && apiKey !== ""
        ? { kind: "api-key", value: apiKey }
        : token !== undefined && token !== ""
          ? { kind: "bearer", value: token }
          : undefined;
    if (credential === undefined) {
      return Promise.reject(
        new AuthenticationError(
          "no Anthropic API key: pass apiKey to AnthropicAdapter or set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a bearer token)",
          { provider: PROVIDER },
        ),
      );
    }
    this.loaded ??= import("@anthropic-ai/sdk").then((sdk) => {
      const pool = new ConnectionPool(PROVIDER, "node-http");
      const baseURL = normaliseBaseUrl(this.options.baseUrl ?? env.ANTHROPIC_BASE_URL ?? DEFAULT_BASE_URL);
      const defaultConnectMs = { ...DEFAULT_TIMEOUTS, ...this.options.timeout }.connectMs;
      // The named class, not the default export: the bundled command requires the SDK as a
      // CommonJS file of its own, whose default export is then the whole module.
      const client = new sdk.Anthropic({
        apiKey: credential.value,
        baseURL,
        maxRetries: 0,
        fetch: pool.sdkFetch(defaultConnectMs),
        ...(!openTelemetryRegistered() && { openTelemetry: false }),
        ...(this.options.defaultHeaders !== undefined && {
          defaultHeaders: { ...this.options.defaultHeaders },
        }),
      });
      return { sdk, client, credential, pool };
    });
    this.loaded.catch(() => {
      this.loaded = undefined;
    });
    return this.loaded;
  }
}

/**
 * Whether the process has registered an OpenTelemetry API (a tracer provider, propagator or
 * context manager), under the global key its version 1 uses. The SDK traces its calls by default;
 * with none registered its spans record and propagate nothing, yet each call would still work out
 * their attributes (the base URL parsed, the headers merged again), so the client is made without
 * tracing then, and with the SDK's default where a host traces its calls.
 */
const openTelemetryRegistered = (): boolean =>
  (globalThis as Record<symbol, unknown>)[Symbol.for("opentelemetry.js.api.1")] !== undefined;

/** The body goes as bytes, which the SDK sends as they are: its content type is ours to give. */
const JSON_CONTENT = { "content-type": "application/json" } as const;

/**
 * What the SDK reads from the parameters besides the body (deprecation notices, the stream flag);
 * the body itself goes as JSON bytes made by encodeBody, which reuses each block's encoding.
 */
const sdkParams = (body: WireBody, stream: boolean): never =>
  ({
    model: body.model,
    max_tokens: body.max_tokens,
    messages: [],
    ...(body.thinking !== undefined && { thinking: body.thinking }),
    // The SDK sends these as headers (provider options may set them), never in the body.
    ...(body.user_profile_id != null && { user_profile_id: body.user_profile_id }),
    ...(body.workspace_id != null && { workspace_id: body.workspace_id }),
    stream,
  }) as never;

/** The SDK's request option that replaces the body it would serialise from the parameters. */
const rawBody = (body: WireBody, stream: boolean): { body: Uint8Array } => {
  const { user_profile_id: _profile, workspace_id: _workspace, ...sent } = body;
  return { body: encodeBody(stream ? { ...sent, stream: true } : (sent as WireBody)) };
};

/**
 * Sends the streaming request through the SDK (its headers, auth and HTTP error classes) and
 * returns the raw response, whose body anthropicEventBatches parses.
 */
function openStream(
  client: SdkClient,
  body: WireBody,
  options: {
    headers: Record<string, string | null>;
    timeout: number;
    fetchOptions: never;
    signal: AbortSignal;
  },
): Promise<globalThis.Response> {
  // Deprecation notices are dropped here: a stream has no warnings channel, and complete() reports them.
  return captureSdkWarnings(() =>
    client.messages.create(sdkParams(body, true), { ...options, ...rawBody(body, true) }).asResponse(),
  ).result as Promise<globalThis.Response>;
}

/**
 * The Messages API authenticates with `x-api-key`, gateways with a bearer token; whichever the
 * SDK would add besides is removed so exactly one credential header goes out.
 */
const authHeaders = (
  credential: Credential,
  extra: Readonly<Record<string, string>>,
): Record<string, string | null> =>
  credential.kind === "api-key"
    ? { ...extra, "x-api-key": credential.value, authorization: null }
    : { ...extra, authorization: `Bearer ${credential.value}`, "x-api-key": null };

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError("request aborted", { cause: signal.reason });
}
