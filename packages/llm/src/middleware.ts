import type { Request, Response, StreamEvent } from "./types/index.js";

/** Calls the rest of the chain (later middleware, then the adapter) for a complete(). */
export type CompleteNext = (request: Request) => Promise<Response>;
/** Calls the rest of the chain (later middleware, then the adapter) for a stream(). */
export type StreamNext = (request: Request) => AsyncIterable<StreamEvent>;

/**
 * Wraps the Client's calls like an onion: the request phase runs in registration order, the
 * response phase in reverse. Each hook receives the request and `next`; it may change the
 * request, call `next` (or not), and change or observe what comes back. A middleware without a
 * hook for a call passes that call through untouched.
 *
 * `stream` must return the iterable at once (an `async function*` does): the Client promises
 * that stream() never blocks, so any waiting belongs inside the iteration.
 */
export interface Middleware {
  /** Shown in errors and debugging; optional. */
  readonly name?: string;
  complete?(request: Request, next: CompleteNext): Promise<Response>;
  stream?(request: Request, next: StreamNext): AsyncIterable<StreamEvent>;
}

/** Builds the complete() chain: middleware[0] is outermost, `terminal` (the adapter) innermost. */
export function composeComplete(middleware: readonly Middleware[], terminal: CompleteNext): CompleteNext {
  return middleware.reduceRight<CompleteNext>((next, mw) => {
    const hook = mw.complete?.bind(mw);
    return hook === undefined ? next : (request) => hook(request, next);
  }, terminal);
}

/** Builds the stream() chain: middleware[0] is outermost, `terminal` (the adapter) innermost. */
export function composeStream(middleware: readonly Middleware[], terminal: StreamNext): StreamNext {
  return middleware.reduceRight<StreamNext>((next, mw) => {
    const hook = mw.stream?.bind(mw);
    return hook === undefined ? next : (request) => hook(request, next);
  }, terminal);
}

/**
 * A middleware that rewrites every request (complete and stream alike) before it goes on, for
 * the common case of adding defaults, headers in provider options, or metadata.
 */
export function requestMiddleware(transform: (request: Request) => Request, name?: string): Middleware {
  return {
    ...(name !== undefined && { name }),
    complete: (request, next) => next(transform(request)),
    stream: (request, next) => next(transform(request)),
  };
}
