import type { OpenAI } from "openai";
import { AbortError } from "../../errors.js";
import { withIdleTimeout } from "../../stream/idle-timeout.js";
import { DEFAULT_TIMEOUTS, type TimeoutConfig } from "../../types/index.js";
import { type ConnectCall, ConnectionPool } from "../shared/connection-pool.js";
import {
  bodyCapturingFetch,
  type ErrorBodies,
  mapOpenAISdkError,
  type OpenAISdkModule,
} from "../shared/openai-sdk-errors.js";
import { openAIEventBatches } from "./sse.js";

let sdkModule: Promise<OpenAISdkModule> | undefined;

/** Loads the `openai` package on first use, so processes that never call OpenAI never load it. */
export const loadOpenAISdk = (): Promise<OpenAISdkModule> => {
  sdkModule ??= import("openai");
  return sdkModule;
};

/** Settings for one SDK client. */
export interface SdkClientConfig {
  readonly apiKey: string;
  readonly baseURL: string;
  readonly organization?: string | undefined;
  readonly project?: string | undefined;
  readonly defaultHeaders?: Readonly<Record<string, string>> | undefined;
  /** Names the provider in connect-timeout errors. */
  readonly provider: string;
  /** Connect timeout for a request made outside CallControl.run; the adapter's default. */
  readonly connectMs: number;
}

/** A ready SDK client, its module (for error classes) and the connections it uses. */
export interface SdkClient {
  readonly client: OpenAI;
  readonly sdk: OpenAISdkModule;
  readonly pool: ConnectionPool;
}

/**
 * An SDK client with its retries off (the caller's retry policy decides), every value passed
 * explicitly, so the SDK never reads process.env behind the adapter's `env` option, and its
 * requests sent through the adapter's connection pool, which bounds the connect time.
 */
export async function createSdkClient(config: SdkClientConfig, bodies: ErrorBodies): Promise<SdkClient> {
  const sdk = await loadOpenAISdk();
  const pool = new ConnectionPool(config.provider, "node-http");
  const client = new sdk.OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    organization: config.organization ?? null,
    project: config.project ?? null,
    ...(config.defaultHeaders !== undefined && { defaultHeaders: { ...config.defaultHeaders } }),
    maxRetries: 0,
    timeout: DEFAULT_TIMEOUTS.requestMs,
    fetch: bodyCapturingFetch(bodies, pool.sdkFetch(config.connectMs)),
    logLevel: "off",
  });
  return { client, sdk, pool };
}

/** Closes the connections of a client that was created, if it was; a failed creation has none. */
export async function closeSdkClient(created: Promise<SdkClient> | undefined): Promise<void> {
  const ready = await created?.catch(() => undefined);
  await ready?.pool.close();
}

/** The adapter's timeouts overlaid with the request's, field by field. */
export const resolveTimeouts = (
  adapter: TimeoutConfig | undefined,
  request: TimeoutConfig | undefined,
): Required<TimeoutConfig> => ({ ...DEFAULT_TIMEOUTS, ...adapter, ...request });

/**
 * One call's cancellation: the caller's signal and our own deadlines both abort one controller,
 * and the call remembers which fired so the resulting SDK error can be mapped truthfully.
 */
export class CallControl {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timeoutMessage: string | undefined;
  private userAborted = false;
  private readonly connect: ConnectCall;
  private readonly onAbort = () => {
    this.userAborted = true;
    this.controller.abort();
  };

  constructor(
    private readonly userSignal: AbortSignal | undefined,
    private readonly provider: string,
    private readonly bodies: ErrorBodies,
    private readonly pool: ConnectionPool,
    connectMs: number,
  ) {
    this.connect = pool.call(connectMs);
    if (userSignal?.aborted) throw new AbortError("the request was aborted before it started");
    userSignal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The signal to hand to the SDK. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * The SDK request options that tie a request to this call: its signal, and the fetch options
   * through which the pool applies its connect timeout and records its connect failure.
   */
  get sdkOptions(): { readonly signal: AbortSignal; readonly fetchOptions: never } {
    return { signal: this.controller.signal, fetchOptions: this.pool.fetchOptions(this.connect) as never };
  }

  /** Whether the call was stopped, by the caller or a deadline. */
  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** Aborts the call after `ms` unless cleared first. */
  deadline(ms: number, what: string): void {
    this.clearDeadline();
    this.timer = setTimeout(() => this.timeOut(`${this.provider}: ${what} exceeded ${ms} ms`), ms);
  }

  clearDeadline(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Aborts the call as timed out (used by the stream idle timeout too). */
  timeOut(message: string): void {
    if (this.controller.signal.aborted) return;
    this.timeoutMessage = message;
    this.controller.abort();
  }

  /** Maps an error thrown during this call. */
  mapError(err: unknown, sdk: OpenAISdkModule | undefined, streamStarted = false) {
    return mapOpenAISdkError(err, {
      provider: this.provider,
      sdk,
      bodies: this.bodies,
      aborted: this.userAborted,
      ...(this.timeoutMessage !== undefined && { timedOut: this.timeoutMessage }),
      ...(this.connect.failure !== undefined && { connectFailure: this.connect.failure }),
      streamStarted,
    });
  }

  /** The error to throw when the stream ended because this call was stopped, if it was. */
  stopError(sdk: OpenAISdkModule | undefined): Error | undefined {
    return this.stopped ? this.mapError(new Error("stream stopped"), sdk, true) : undefined;
  }

  dispose(): void {
    this.clearDeadline();
    this.userSignal?.removeEventListener("abort", this.onAbort);
  }
}

/**
 * Runs one streaming call: opens it (the SDK sends the request and maps HTTP errors), parses the
 * body's events itself, bounds the silence between events, turns a quiet end-on-abort into an
 * error, translates events, and maps every failure into our hierarchy.
 */
export async function* runStream<W, E>(args: {
  readonly provider: string;
  readonly control: CallControl;
  readonly sdk: OpenAISdkModule;
  readonly streamReadMs: number;
  /** Sends the request; resolves to the raw response once its headers are in. */
  readonly open: () => Promise<globalThis.Response>;
  readonly translate: (source: AsyncIterable<W>, headers: Headers) => AsyncIterable<E>;
}): AsyncGenerator<E> {
  const { control, sdk } = args;
  let started = false;
  try {
    let response: globalThis.Response;
    try {
      response = await args.open();
    } catch (err) {
      throw control.mapError(err, sdk);
    }
    // The clock runs between reads that complete an event, as it would between events.
    const idle = withIdleTimeout(
      openAIEventBatches<W>(response, sdk),
      args.streamReadMs,
      () => control.timeOut(`${args.provider}: no data from the stream for ${args.streamReadMs} ms`),
      args.provider,
    );
    async function* guarded(): AsyncGenerator<W> {
      for await (const batch of idle) yield* batch;
      // An aborted read ends quietly, as the SDK's stream does.
      const stop = control.stopError(sdk);
      if (stop !== undefined) throw stop;
    }
    for await (const event of args.translate(guarded(), response.headers)) {
      started = true;
      yield event;
    }
  } catch (err) {
    throw control.mapError(err, sdk, started);
  } finally {
    control.dispose();
  }
}
