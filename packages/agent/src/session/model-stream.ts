import {
  type Request,
  type RetryPolicy,
  type StreamEvent,
  type StreamSource,
  streamWithRetry,
} from "@attractor/llm";

/** Opens the stream for one model call. */
export type OpenStream = (client: StreamSource, request: Request) => AsyncIterable<StreamEvent>;

/**
 * The default way a session opens a model stream: the llm layer's streamWithRetry, so transient
 * failures (429, 5xx, network) before the first event are retried with backoff; a stream that
 * fails after it started is not retried. `{ maxRetries: 0 }` turns retrying off.
 */
export function retryingOpenStream(policy: RetryPolicy = {}): OpenStream {
  return (client, request) => streamWithRetry(client, request, policy);
}
