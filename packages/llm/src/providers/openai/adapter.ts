import { AuthenticationError } from "../../errors.js";
import type { Request, Response, StreamEvent, TimeoutConfig, ToolChoice } from "../../types/index.js";
import type { AdapterOptions, ProviderAdapter } from "../adapter.js";
import type { ErrorBodies } from "../shared/openai-sdk-errors.js";
import { rateLimitFromHeaders } from "../shared/rate-limit.js";
import { buildResponsesBody } from "./request.js";
import { responseFromWire, type WireResponse } from "./response.js";
import { translateResponsesStream, type WireStreamEvent } from "./stream.js";
import {
  CallControl,
  closeSdkClient,
  createSdkClient,
  resolveTimeouts,
  runStream,
  type SdkClient,
} from "./transport.js";

const PROVIDER = "openai";
const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Options of the OpenAI Responses adapter. */
export type OpenAIAdapterOptions = AdapterOptions & {
  readonly timeout?: TimeoutConfig;
  /** Defaults to OPENAI_ORG_ID. */
  readonly organization?: string;
  /** Defaults to OPENAI_PROJECT_ID. */
  readonly project?: string;
};

/**
 * The OpenAI Responses API (`/v1/responses`). Constructing one never fails and never loads the
 * SDK; a missing key is reported when a request is made.
 */
export class OpenAIAdapter implements ProviderAdapter {
  readonly name = PROVIDER;
  private readonly bodies: ErrorBodies = new WeakMap();
  private sdkClient: Promise<SdkClient> | undefined;

  constructor(private readonly options: OpenAIAdapterOptions = {}) {}

  /** Every tool-choice mode maps onto the Responses API. */
  supportsToolChoice(_mode: ToolChoice["mode"]): boolean {
    return true;
  }

  /** Sends the request and translates the whole response. */
  async complete(request: Request): Promise<Response> {
    const { client, sdk, pool } = await this.client();
    const { body, warnings } = await buildResponsesBody(request);
    const timeouts = resolveTimeouts(this.options.timeout, request.timeout);
    const control = new CallControl(request.signal, PROVIDER, this.bodies, pool, timeouts.connectMs);
    control.deadline(timeouts.requestMs, "the request");
    try {
      const { data, response } = await client.responses
        .create({ ...body, stream: false } as never, {
          ...control.sdkOptions,
          timeout: timeouts.requestMs,
        })
        .withResponse();
      return responseFromWire(data as unknown as WireResponse, {
        warnings,
        rateLimit: rateLimitFromHeaders(response.headers),
      });
    } catch (err) {
      throw control.mapError(err, sdk);
    } finally {
      control.dispose();
    }
  }

  /** Streams the response; the iterator throws our errors, and ends with `finish`. */
  async *stream(request: Request): AsyncGenerator<StreamEvent> {
    const { client, sdk, pool } = await this.client();
    const { body, warnings } = await buildResponsesBody(request);
    const timeouts = resolveTimeouts(this.options.timeout, request.timeout);
    const control = new CallControl(request.signal, PROVIDER, this.bodies, pool, timeouts.connectMs);
    yield* runStream<WireStreamEvent, StreamEvent>({
      provider: PROVIDER,
      control,
      sdk,
      streamReadMs: timeouts.streamReadMs,
      open: () =>
        client.responses
          .create({ ...body, stream: true } as never, { ...control.sdkOptions, timeout: timeouts.requestMs })
          .asResponse(),
      translate: (source, headers) =>
        translateResponsesStream(source, { warnings, rateLimit: rateLimitFromHeaders(headers) }),
    });
  }

  /** Closes the adapter's connections; a later request opens new ones. */
  async close(): Promise<void> {
    const created = this.sdkClient;
    this.sdkClient = undefined;
    await closeSdkClient(created);
  }

  private client(): Promise<SdkClient> {
    const env = this.options.env ?? process.env;
    const apiKey = this.options.apiKey ?? env.OPENAI_API_KEY;
    if (apiKey === undefined || apiKey === "") {
      return Promise.reject(
        new AuthenticationError("openai: no API key; set OPENAI_API_KEY or pass apiKey to OpenAIAdapter", {
          provider: PROVIDER,
        }),
      );
    }
    this.sdkClient ??= createSdkClient(
      {
        apiKey,
        baseURL: this.options.baseUrl ?? env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
        organization: this.options.organization ?? env.OPENAI_ORG_ID,
        project: this.options.project ?? env.OPENAI_PROJECT_ID,
        defaultHeaders: this.options.defaultHeaders,
        provider: PROVIDER,
        connectMs: resolveTimeouts(this.options.timeout, undefined).connectMs,
      },
      this.bodies,
    );
    return this.sdkClient;
  }
}
