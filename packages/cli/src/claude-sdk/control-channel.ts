import { randomUUID } from "node:crypto";

/** Why a control request to the client got no usable answer. */
export class ControlRequestError extends Error {
  override readonly name = "ControlRequestError";
  constructor(
    readonly subtype: string,
    /** error: the client answered with an error; timeout, closed, cancelled: no answer came. */
    readonly reason: "error" | "timeout" | "closed" | "cancelled",
    message: string,
  ) {
    super(message);
  }
}

/**
 * attractor's side of the control protocol's requests to the client (the Claude Agent SDK):
 * sends `control_request` lines and matches the client's `control_response` lines to them.
 */
export interface ControlChannel {
  /**
   * Sends `{type: "control_request", request_id, request}` and resolves with the success
   * response's payload; rejects with ControlRequestError on an error response, when `timeoutMs`
   * passes, when `signal` aborts, or when the channel closes. Never waits forever.
   */
  request(
    request: { readonly subtype: string; readonly [key: string]: unknown },
    options?: { readonly timeoutMs?: number; readonly signal?: AbortSignal },
  ): Promise<Record<string, unknown>>;
  /** Hands over a `control_response` line from the client; true when it answered a pending request. */
  receive(line: unknown): boolean;
  /** Fails every pending request with `reason` (the client went away, or the turn was interrupted). */
  cancelAll(reason: "closed" | "cancelled"): void;
  /** Closes the channel: pending and later requests fail at once. */
  close(): void;
}

interface Pending {
  readonly subtype: string;
  readonly resolve: (value: Record<string, unknown>) => void;
  readonly reject: (error: ControlRequestError) => void;
}

/** How long a request waits for its answer by default: a person may be answering it. */
export const DEFAULT_CONTROL_TIMEOUT_MS = 10 * 60_000;

/** A control channel writing its request lines with `write` (one JSON object and a newline each). */
export function createControlChannel(write: (line: string) => void): ControlChannel {
  const pending = new Map<string, Pending>();
  let closed = false;

  const settle = (id: string): Pending | undefined => {
    const entry = pending.get(id);
    pending.delete(id);
    return entry;
  };

  const cancelAll = (reason: "closed" | "cancelled") => {
    for (const [id, entry] of [...pending]) {
      pending.delete(id);
      entry.reject(
        new ControlRequestError(
          entry.subtype,
          reason,
          reason === "closed" ? "the client closed its input before answering" : "the turn was interrupted",
        ),
      );
    }
  };

  return {
    request(request, options = {}) {
      if (closed)
        return Promise.reject(
          new ControlRequestError(request.subtype, "closed", "the client closed its input"),
        );
      const id = `attractor-${randomUUID()}`;
      const timeoutMs = options.timeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS;
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const cleanup = () => {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
        };
        const cancel = (reason: "timeout" | "cancelled", message: string) => {
          if (!settle(id)) return;
          cleanup();
          // The client stops whatever it was doing for the request (a dialog, a callback).
          write(`${JSON.stringify({ type: "control_cancel_request", request_id: id })}\n`);
          reject(new ControlRequestError(request.subtype, reason, message));
        };
        const onAbort = () => cancel("cancelled", "the request was cancelled");
        const timer = setTimeout(
          () => cancel("timeout", `no answer within ${Math.round(timeoutMs / 1000)} s`),
          timeoutMs,
        );
        timer.unref?.();
        pending.set(id, {
          subtype: request.subtype,
          resolve: (value) => {
            cleanup();
            resolve(value);
          },
          reject: (error) => {
            cleanup();
            reject(error);
          },
        });
        if (options.signal?.aborted) return onAbort();
        options.signal?.addEventListener("abort", onAbort, { once: true });
        write(`${JSON.stringify({ type: "control_request", request_id: id, request })}\n`);
      });
    },
    receive(line) {
      const response = (line as { response?: unknown } | null)?.response as
        | { subtype?: unknown; request_id?: unknown; response?: unknown; error?: unknown }
        | undefined;
      if (typeof response?.request_id !== "string") return false;
      const entry = settle(response.request_id);
      if (!entry) return false;
      if (response.subtype === "success") {
        const payload = response.response;
        entry.resolve(
          payload !== null && typeof payload === "object" && !Array.isArray(payload)
            ? (payload as Record<string, unknown>)
            : {},
        );
      } else {
        const why = typeof response.error === "string" ? response.error : "the client answered with an error";
        entry.reject(new ControlRequestError(entry.subtype, "error", why));
      }
      return true;
    },
    cancelAll,
    close() {
      closed = true;
      cancelAll("closed");
    },
  };
}
