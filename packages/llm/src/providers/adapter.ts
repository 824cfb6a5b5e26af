import type { Request, Response, StreamEvent, ToolChoice } from "../types/index.js";

/**
 * One wire protocol. Adapters translate requests and responses, map every transport error into
 * the SDKError hierarchy, and never retry: retrying is the caller's policy (see retry.ts).
 */
export interface ProviderAdapter {
  readonly name: string;
  /** Sends the request and waits for the whole response. */
  complete(request: Request): Promise<Response>;
  /** Streams the response; the last event is `finish`. Errors are thrown by the iterator. */
  stream(request: Request): AsyncIterable<StreamEvent>;
  /** Whether the provider supports this tool-choice mode. */
  supportsToolChoice?(mode: ToolChoice["mode"]): boolean;
  /** Closes the adapter's pooled connections; calls in flight fail, later calls open new ones. */
  close?(): Promise<void>;
}

/** Options every adapter accepts; missing values come from the provider's environment variables. */
export interface AdapterOptions {
  readonly apiKey?: string;
  readonly baseUrl?: string;
  readonly defaultHeaders?: Readonly<Record<string, string>>;
  /** Environment to read keys and base URLs from; process.env by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}
