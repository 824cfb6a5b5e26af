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
  try {
    while (true) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          onTimeout();
          reject(
            new RequestTimeoutError(`no data from the stream for ${ms} ms`, {
              ...(provider !== undefined && { provider }),
            }),
          );
        }, ms);
      });
      let next: IteratorResult<T>;
      try {
        next = await Promise.race([it.next(), timeout]);
      } finally {
        clearTimeout(timer);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await it.return?.();
  }
}
