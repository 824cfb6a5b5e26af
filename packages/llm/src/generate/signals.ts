import { AbortError, RequestTimeoutError } from "../errors.js";

/** A child abort scope: aborts with its parent, or by itself after `ms` (a timeout). */
export interface Scope {
  readonly signal: AbortSignal;
  /** Whether this scope's own timer fired. */
  timedOut(): boolean;
  dispose(): void;
}

/** Opens a scope under `parent` that times out after `ms` when given. */
export function openScope(parent: AbortSignal | undefined, ms: number | undefined, what: string): Scope {
  const controller = new AbortController();
  let fired = false;
  const onParent = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParent, { once: true });
  const timer =
    ms === undefined
      ? undefined
      : setTimeout(() => {
          fired = true;
          controller.abort(new RequestTimeoutError(`${what} timed out after ${ms} ms`));
        }, ms);
  return {
    signal: controller.signal,
    timedOut: () => fired,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      parent?.removeEventListener("abort", onParent);
    },
  };
}

/** The error to report when `signal` has aborted: its timeout error, else an AbortError. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof RequestTimeoutError || reason instanceof AbortError) return reason;
  return new AbortError("the generation was aborted", { cause: reason });
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts: a handler or adapter that
 * ignores the signal cannot hold the caller past an abort or a timeout.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        // An adapter reports an abort in its own words; report ours (timeout or abort) instead.
        reject(signal.aborted ? abortError(signal) : err);
      },
    );
  });
}
