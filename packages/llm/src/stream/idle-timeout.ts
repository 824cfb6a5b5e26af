import { RequestTimeoutError } from "../errors.js";

/**
 * Yields from `source` but fails with RequestTimeoutError when no item arrives for `ms`
 * milliseconds; `onTimeout` runs first so the caller can cancel the underlying connection.
 */
export async function* withIdleTimeout<T>(
  source: AsyncIterable<T>,
  ms: number,
  onTimeout: () => void,
  provider?: string,
): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  // One timer and one timeout promise for the whole stream, restarted before each wait, rather
  // than a timer and a promise per item: the clock runs only while an item is awaited.
  let waiting = false;
  let fail: (error: Error) => void = () => {};
  const timeout = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // Raced while waiting only; a rejection after the last race is nobody's to handle.
  timeout.catch(() => {});
  const timer = setTimeout(() => {
    // Fired while the consumer held an item: the next wait restarts the clock.
    if (!waiting) return;
    onTimeout();
    fail(
      new RequestTimeoutError(`no data from the stream for ${ms} ms`, {
        ...(provider !== undefined && { provider }),
      }),
    );
  }, ms);
  try {
    while (true) {
      waiting = true;
      timer.refresh();
      let next: IteratorResult<T>;
      try {
        next = await Promise.race([it.next(), timeout]);
      } finally {
        waiting = false;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    await it.return?.();
  }
}
