import { ConfigurationError } from "../../errors.js";
import type { Request, Response, StreamEvent, TimeoutConfig, ToolChoice } from "../../types/index.js";
import type { AdapterOptions, ProviderAdapter } from "../adapter.js";
import {
  CallControl,
  closeSdkClient,
  createSdkClient,
  resolveTimeouts,
  runStream,
  type SdkClient,
} from "../openai/transport.js";
import type { ErrorBodies } from "../shared/openai-sdk-errors.js";
import { rateLimitFromHeaders } from "../shared/rate-limit.js";
import { buildChatBody, PROVIDER } from "./request.js";
import { chatResponseFromWire, type WireChatCompletion } from "./response.js";
import { translateChatStream } from "./stream.js";

/** Local servers take any key; the SDK insists on one, so this goes out when none is set. */
const PLACEHOLDER_KEY = "not-needed";

/** Options of the OpenAI-compatible Chat Completions adapter. */
export type OpenAICompatibleAdapterOptions = AdapterOptions & {
  readonly timeout?: TimeoutConfig;
  readonly organization?: string;
  readonly project?: string;
  /**
   * Send thinking back as `reasoning_content` on assistant messages, for servers that want it
   * (DeepSeek, vLLM reasoning parsers); a request's `providerOptions["openai-compatible"].sendReasoning`
   * overrides it. Off by default: strict servers reject the field.
   */
  readonly sendReasoning?: boolean;
};

/**
 * Any server speaking OpenAI Chat Completions (`/v1/chat/completions`): Ollama, vLLM, LM Studio,
 * OpenRouter, llama.cpp. The base URL is required (option or OPENAI_COMPATIBLE_BASE_URL); the key
 * is optional (OPENAI_COMPATIBLE_API_KEY). Both are checked when a request is made.
 */
export class OpenAICompatibleAdapter implements ProviderAdapter {
  readonly name = PROVIDER;
  private readonly bodies: ErrorBodies = new WeakMap();
  private sdkClient: Promise<SdkClient> | undefined;

  constructor(private readonly options: OpenAICompatibleAdapterOptions = {}) {}

  /** Chat Completions defines every mode; whether a given server honours them is its business. */
  supportsToolChoice(_mode: ToolChoice["mode"]): boolean {
    return true;
  }

  /** Sends the request and translates the whole response. */
  async complete(request: Request): Promise<Response> {
    const { client, sdk, pool } = await this.client();
    const { body, warnings } = await buildChatBody(request, false, this.options.sendReasoning);
    const timeouts = resolveTimeouts(this.options.timeout, request.timeout);
    const control = new CallControl(request.signal, PROVIDER, this.bodies, pool, timeouts.connectMs);
    control.deadline(timeouts.requestMs, "the request");
    try {
      const { data, response } = await client.chat.completions
        .create(body as never, { ...control.sdkOptions, timeout: timeouts.requestMs })
        .withResponse();
      return chatResponseFromWire(data as unknown as WireChatCompletion, {
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
    const { body, warnings } = await buildChatBody(request, true, this.options.sendReasoning);
    const timeouts = resolveTimeouts(this.options.timeout, request.timeout);
    const control = new CallControl(request.signal, PROVIDER, this.bodies, pool, timeouts.connectMs);
    yield* runStream<WireChatCompletion, StreamEvent>({
      provider: PROVIDER,
      control,
      sdk,
      streamReadMs: timeouts.streamReadMs,
      open: () =>
        client.chat.completions
          .create(body as never, { ...control.sdkOptions, timeout: timeouts.requestMs })
          .asResponse(),
      translate: (source, headers) =>
        translateChatStream(source, { warnings, rateLimit: rateLimitFromHeaders(headers) }),
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
    const baseURL = this.options.baseUrl ?? env.OPENAI_COMPATIBLE_BASE_URL;
    if (baseURL === undefined || baseURL === "") {
      return Promise.reject(
        new ConfigurationError(
          "openai-compatible: no server URL; set OPENAI_COMPATIBLE_BASE_URL (e.g. http://localhost:11434/v1) or pass baseUrl",
        ),
      );
    }
    const apiKey = this.options.apiKey ?? env.OPENAI_COMPATIBLE_API_KEY;
    this.sdkClient ??= createSdkClient(
      {
        apiKey: apiKey === undefined || apiKey === "" ? PLACEHOLDER_KEY : apiKey,
        baseURL,
        organization: this.options.organization,
        project: this.options.project,
        defaultHeaders: this.options.defaultHeaders,
        provider: PROVIDER,
        connectMs: resolveTimeouts(this.options.timeout, undefined).connectMs,
      },
      this.bodies,
    );
    return this.sdkClient;
  }
}
