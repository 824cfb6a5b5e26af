import { isAbortError, sseBatches } from "../shared/sse-parser.js";

type Sdk = typeof import("@anthropic-ai/sdk");

/**
 * The Messages API events of a streamed response, parsed from its body in batches, read as the
 * SDK's stream reads them: `ping` and unnamed events skipped, an `error` event thrown as the
 * SDK's status-less APIError (which the error mapping reads), each other event's data parsed as
 * JSON. Reading stopped by an abort ends quietly, as the SDK's stream does; the caller checks.
 */
export async function* anthropicEventBatches(
  response: globalThis.Response,
  sdk: Sdk,
): AsyncGenerator<unknown[]> {
  const body = response.body as unknown as AsyncIterable<Uint8Array> | null;
  if (body === null) throw new sdk.AnthropicError("Attempted to iterate over a response with no body");
  const read = (event: string | null, data: string): unknown => {
    if (event === null || event === "ping") return undefined;
    if (event === "error") {
      const parsed = safeJson(data) ?? data;
      const type = (parsed as { error?: { type?: string } } | undefined)?.error?.type;
      throw new sdk.APIError(undefined, parsed as object, undefined, response.headers, type as never);
    }
    return data === "" ? undefined : JSON.parse(data);
  };
  try {
    yield* sseBatches(body, read);
  } catch (err) {
    if (isAbortError(err)) return;
    throw err;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
