import type { GenerateContentResponse } from "@google/genai";
import { sseBatches } from "../shared/sse-parser.js";

type Sdk = typeof import("@google/genai");

/**
 * The chunks of a streamed generateContent reply, parsed from its body in batches, read as the
 * SDK's stream reader reads them: each event's data (its `data:` lines joined) parsed as JSON, an
 * `{ error: { code } }` payload with an HTTP status code thrown as the SDK's ApiError, and a body
 * that ends inside an event failing as the SDK's does. The chunks are the JSON the server sent;
 * the SDK's copy of them renames a few fields the translator does not read.
 */
export function geminiChunkBatches(
  body: AsyncIterable<Uint8Array>,
  sdk: Sdk,
): AsyncGenerator<GenerateContentResponse[]> {
  const read = (_event: string | null, data: string): GenerateContentResponse | undefined => {
    const text = data.trim();
    if (text === "") return undefined;
    const chunk = JSON.parse(text) as unknown;
    const error = (chunk as { error?: unknown } | null)?.error;
    if (typeof error === "object" && error !== null) {
      const { code, status } = error as { code?: unknown; status?: unknown };
      if (typeof code === "number" && code >= 400 && code < 600) {
        throw new sdk.ApiError({
          message: `got status: ${String(status)}. ${JSON.stringify(chunk)}`,
          status: code,
        });
      }
    }
    return chunk as GenerateContentResponse;
  };
  return sseBatches(body, read, () => {
    throw new Error("Incomplete JSON segment at the end");
  });
}
