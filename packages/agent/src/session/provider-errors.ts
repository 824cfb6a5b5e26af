import { AuthenticationError, ContextLengthError, SDKError } from "@attractor/llm";

/** What the loop does about an error from the model call (after the llm layer's retries). */
export type ProviderErrorAction =
  /** Emit the warning (if any) and the ERROR, then shut the session down. */
  | { readonly kind: "close"; readonly warning?: ProviderErrorWarning }
  /** Emit the warning (if any) and a non-fatal ERROR and end this input; the session stays usable. */
  | { readonly kind: "end_input"; readonly warning?: ProviderErrorWarning };

/** A warning emitted before the error. */
export interface ProviderErrorWarning {
  readonly code: "context_length";
  readonly message: string;
}

/**
 * The single decision point for model-call failures. Authentication and other non-retryable
 * provider errors close the session; a context overflow that compaction could not fix warns and
 * ends the input, leaving the session usable (the host may compact, drop work or switch to a
 * model with a larger window); transient errors that outlived their retries end the input only.
 */
export function decideOnProviderError(error: unknown): ProviderErrorAction {
  if (error instanceof ContextLengthError) {
    return {
      kind: "end_input",
      warning: {
        code: "context_length",
        message: "The conversation no longer fits the model's context window.",
      },
    };
  }
  if (error instanceof AuthenticationError) return { kind: "close" };
  if (error instanceof SDKError && error.retryable) return { kind: "end_input" };
  if (error instanceof SDKError) return { kind: "close" };
  // Not from the llm layer (a host middleware bug, say): do not kill the session for it.
  return { kind: "end_input" };
}

/** Error fields for an ERROR event. */
export function describeError(error: unknown): {
  message: string;
  errorName: string;
  statusCode?: number;
  retryable: boolean;
} {
  if (error instanceof Error) {
    const status = (error as { statusCode?: unknown }).statusCode;
    return {
      message: error.message,
      errorName: error.name,
      ...(typeof status === "number" && { statusCode: status }),
      retryable: error instanceof SDKError ? error.retryable : false,
    };
  }
  return { message: String(error), errorName: "Error", retryable: false };
}
