import type { GenerateContentParameters, GoogleGenAI } from "@google/genai";
import { AbortError, AuthenticationError } from "../../errors.js";
import { withIdleTimeout } from "../../stream/idle-timeout.js";
import type { Request, Response, StreamEvent, TimeoutConfig, ToolChoice } from "../../types/index.js";
import { DEFAULT_TIMEOUTS } from "../../types/index.js";
import type { AdapterOptions, ProviderAdapter } from "../adapter.js";
import { ConnectionPool } from "../shared/connection-pool.js";
import { rateLimitFromHeaders } from "../shared/rate-limit.js";
import { type Exchange, mapGeminiError } from "./errors.js";
import { PROVIDER, providerToolWarnings, toGeminiCall } from "./request.js";
import { type ClientSettings, createGeminiClient, loadGeminiSdk } from "./sdk.js";
import { geminiChunkBatches } from "./sse.js";
import { GeminiEventTranslator } from "./translate.js";

export interface GeminiAdapterOptions extends AdapterOptions {
  readonly timeout?: TimeoutConfig;
}

/** Splits `https://host/v1beta` into the SDK's base URL and API version; other URLs pass as they are. */
export function splitBaseUrl(url: string): { baseUrl: string; apiVersion?: string } {
  const m = /^(.*?)\/(v\d+(?:alpha|beta)?\d*)\/?$/.exec(url);
  return m ? { baseUrl: `${m[1]}/`, apiVersion: m[2]! } : { baseUrl: url };
}

/** One request's transport: the combined abort signal and what was seen of the exchange. */
interface Transport {
  readonly exchange: Exchange;
  readonly controller: AbortController;
  readonly signal: AbortSignal;
}

function transport(userSignal: AbortSignal | undefined): Transport {
  const controller = new AbortController();
  const signal = userSignal ? AbortSignal.any([userSignal, controller.signal]) : controller.signal;
  return { exchange: { sent: false }, controller, signal };
}

/**
 * The request's fetch (the SDK takes one per request): through the adapter's pool with the
 * request's connect timeout, recording the response, and its connect failure, on the exchange.
 */
function recordingFetch(
  exchange: Exchange,
  pool: ConnectionPool,
  connectMs: number,
): typeof globalThis.fetch {
  const connect = pool.call(connectMs);
  exchange.connect = connect;
  return async (input, init) => {
    exchange.sent = true;
    const res = await pool.fetch(connect, input, init);
    // A stream's body is read by geminiChunkBatches, never by the SDK.
    exchange.response = res;
    // The SDK reads an error body itself and keeps only a re-serialised copy; keep the original.
    if (!res.ok) exchange.errorBody = res.clone().text();
    return res;
  };
}

/**
 * Gemini Developer API adapter (`/v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse`) over the official @google/genai SDK, loaded on first use.
 */
export class GeminiAdapter implements ProviderAdapter {
  readonly name = PROVIDER;
  private client?: { key: string; sdk: Promise<GoogleGenAI> };
  private readonly pool = new ConnectionPool(PROVIDER);

  constructor(private readonly options: GeminiAdapterOptions = {}) {}

  /** Gemini supports every tool-choice mode. */
  supportsToolChoice(_mode: ToolChoice["mode"]): boolean {
    return true;
  }

  async complete(request: Request): Promise<Response> {
    if (request.signal?.aborted) throw new AbortError("gemini request aborted");
    const t = transport(request.signal);
    const timeouts = this.timeouts(request);
    const timer = setTimeout(() => {
      t.exchange.timedOut = "request";
      t.controller.abort();
    }, timeouts.requestMs);
    try {
      const client = await this.sdk();
      const params = await this.params(request, t, recordingFetch(t.exchange, this.pool, timeouts.connectMs));
      const result = await client.models.generateContent(params);
      const translator = new GeminiEventTranslator(request.model, providerToolWarnings(request));
      for (const _ of translator.chunk(result));
      for (const _ of translator.finish(rateLimitFromHeaders(t.exchange.response?.headers)));
      return translator.response();
    } catch (err) {
      throw await mapGeminiError(err, t.exchange, "request", request.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  async *stream(request: Request): AsyncGenerator<StreamEvent> {
    if (request.signal?.aborted) throw new AbortError("gemini request aborted");
    const t = transport(request.signal);
    const timeouts = this.timeouts(request);
    let phase: "request" | "stream" = "request";
    // Gemini sends headers with the first chunk, so the wait for them is a stream read.
    const headerTimer = setTimeout(() => {
      t.exchange.timedOut = "stream";
      t.controller.abort();
    }, timeouts.streamReadMs);
    try {
      const client = await this.sdk();
      const params = await this.params(request, t, recordingFetch(t.exchange, this.pool, timeouts.connectMs));
      // The SDK sends the request and throws for an HTTP error; its chunk iterator, which would
      // wrap every event in a Response of its own, is left unread and the body parsed here.
      await client.models.generateContentStream(params);
      clearTimeout(headerTimer);
      phase = "stream";
      const body = t.exchange.response?.body as unknown as AsyncIterable<Uint8Array> | null | undefined;
      if (body == null) throw new Error("Response body is empty");
      const translator = new GeminiEventTranslator(request.model, providerToolWarnings(request));
      const idle = withIdleTimeout(
        geminiChunkBatches(body, await loadGeminiSdk()),
        timeouts.streamReadMs,
        () => {
          t.exchange.timedOut = "stream";
          t.controller.abort();
        },
        PROVIDER,
      );
      for await (const batch of idle) {
        for (const chunk of batch) {
          for (const event of translator.chunk(chunk)) {
            if (request.signal?.aborted) throw new AbortError("gemini request aborted");
            yield event;
          }
        }
      }
      yield* translator.finish(rateLimitFromHeaders(t.exchange.response?.headers));
    } catch (err) {
      throw await mapGeminiError(err, t.exchange, phase, request.signal);
    } finally {
      clearTimeout(headerTimer);
      // Closes the connection when the consumer stops early or anything failed.
      t.controller.abort();
    }
  }

  /** Drops the SDK client and closes the adapter's connections; a later request opens new ones. */
  async close(): Promise<void> {
    this.client = undefined;
    await this.pool.close();
  }

  private timeouts(request: Request): Required<TimeoutConfig> {
    return { ...DEFAULT_TIMEOUTS, ...this.options.timeout, ...request.timeout };
  }

  private async params(
    request: Request,
    t: Transport,
    fetch: typeof globalThis.fetch,
  ): Promise<GenerateContentParameters> {
    const call = await toGeminiCall(request);
    return {
      model: call.model,
      contents: call.contents,
      config: {
        ...call.config,
        abortSignal: t.signal,
        httpOptions: { fetch },
        // Both would make extra requests behind our back.
        automaticFunctionCalling: { disable: true },
        automaticContinuation: false,
      },
    };
  }

  private apiKey(): string {
    const env = this.options.env ?? process.env;
    const key = this.options.apiKey ?? nonEmpty(env.GEMINI_API_KEY) ?? nonEmpty(env.GOOGLE_API_KEY);
    if (key === undefined) {
      throw new AuthenticationError(
        "no Gemini API key: pass apiKey or set GEMINI_API_KEY (or GOOGLE_API_KEY)",
        { provider: PROVIDER },
      );
    }
    return key;
  }

  private sdk(): Promise<GoogleGenAI> {
    const key = this.apiKey();
    if (this.client?.key !== key) {
      const env = this.options.env ?? process.env;
      // GOOGLE_GEMINI_BASE_URL is gemini-cli's name for the same setting.
      const url =
        this.options.baseUrl ?? nonEmpty(env.GEMINI_BASE_URL) ?? nonEmpty(env.GOOGLE_GEMINI_BASE_URL);
      const split = url !== undefined ? splitBaseUrl(url) : undefined;
      const settings: ClientSettings = {
        apiKey: key,
        ...(split !== undefined && { baseUrl: split.baseUrl }),
        ...(split?.apiVersion !== undefined && { apiVersion: split.apiVersion }),
        ...(this.options.defaultHeaders !== undefined && { headers: this.options.defaultHeaders }),
      };
      const sdk = createGeminiClient(settings);
      sdk.catch(() => {
        if (this.client?.sdk === sdk) this.client = undefined;
      });
      this.client = { key, sdk };
    }
    return this.client.sdk;
  }
}

const nonEmpty = (v: string | undefined): string | undefined =>
  v === undefined || v.trim() === "" ? undefined : v.trim();
