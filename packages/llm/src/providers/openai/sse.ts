import type { OpenAISdkModule } from "../shared/openai-sdk-errors.js";
import { isAbortError, sseBatches } from "../shared/sse-parser.js";

/**
 * The events of a streamed Responses or Chat Completions reply, parsed from its body in batches,
 * read as the `openai` SDK's stream reads them: nothing after `[DONE]`, each event's data parsed
 * as JSON, one carrying an `error` thrown as the SDK's status-less APIError, `thread.*` events as
 * `{ event, data }`. Reading stopped by an abort ends quietly, as the SDK's stream does.
 */
export async function* openAIEventBatches<W>(
  response: globalThis.Response,
  sdk: OpenAISdkModule,
): AsyncGenerator<W[]> {
  const body = response.body as unknown as AsyncIterable<Uint8Array> | null;
  if (body === null) throw new sdk.OpenAIError("Attempted to iterate over a response with no body");
  let done = false;
  const read = (event: string | null, data: string): W | undefined => {
    if (done) return undefined;
    if (data.startsWith("[DONE]")) {
      done = true;
      return undefined;
    }
    const parsed = JSON.parse(data);
    if (event?.startsWith("thread.")) return { event, data: parsed } as W;
    if (parsed?.error) throw new sdk.APIError(undefined, parsed.error, undefined, response.headers);
    return parsed as W;
  };
  try {
    yield* sseBatches(body, read);
  } catch (err) {
    if (isAbortError(err)) return;
    throw err;
  }
}
