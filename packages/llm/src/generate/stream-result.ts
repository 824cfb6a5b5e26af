import { AbortError } from "../errors.js";
import { StreamAccumulator } from "../stream/index.js";
import type { Response } from "../types/index.js";
import type { GenerateResult, GenerateStreamEvent } from "./types.js";

/** A running high-level stream: iterate it once (events or textStream), or just await result(). */
export interface StreamResult extends AsyncIterable<GenerateStreamEvent> {
  /** The text deltas of every step; consumes the stream (use it instead of iterating events). */
  readonly textStream: AsyncIterable<string>;
  /** The current step's response so far. */
  readonly partialResponse: Response;
  /** The last step's response, once the stream has finished (drives the stream if nobody iterates). */
  response(): Promise<Response>;
  /** The whole result, steps and total usage included, once finished. */
  result(): Promise<GenerateResult>;
}

/** Wraps a tool-loop generator into a StreamResult. */
export function createStreamResult(loop: AsyncGenerator<GenerateStreamEvent, GenerateResult>): StreamResult {
  let accumulator = new StreamAccumulator();
  let taken = false;
  let settle!: { resolve: (r: GenerateResult) => void; reject: (e: unknown) => void };
  const done = new Promise<GenerateResult>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Rejections reach whoever awaits result(); nobody awaiting is not an unhandled error.
  done.catch(() => undefined);

  const events = (async function* () {
    let finished = false;
    try {
      while (true) {
        const next = await loop.next();
        if (next.done) {
          finished = true;
          settle.resolve(next.value);
          return;
        }
        const event = next.value;
        if (event.type === "step_finish") accumulator = new StreamAccumulator();
        else accumulator.process(event);
        yield event;
      }
    } catch (err) {
      finished = true;
      settle.reject(err);
      throw err;
    } finally {
      if (!finished) {
        await loop.return(undefined as never).catch(() => undefined);
        settle.reject(new AbortError("the stream was closed before it finished"));
      }
    }
  })();

  const take = (): AsyncGenerator<GenerateStreamEvent> => {
    if (taken) throw new Error("a StreamResult can be iterated only once");
    taken = true;
    return events;
  };

  const result: StreamResult = {
    [Symbol.asyncIterator]: take,
    get textStream() {
      const source = take();
      return (async function* () {
        for await (const event of source) if (event.type === "text_delta") yield event.delta;
      })();
    },
    get partialResponse() {
      return accumulator.response();
    },
    result() {
      if (!taken) {
        const source = take();
        void (async () => {
          for await (const _ of source);
        })().catch(() => undefined);
      }
      return done;
    },
    response: () => result.result().then((r) => r.response),
  };
  return result;
}
