import type { Response } from "@attractor/llm";

/** What the loop does with a response, read from its finish reason. */
export type FinishAction =
  /** An ordinary end: run the tool calls, or end the input with the answer. */
  | { readonly kind: "normal" }
  /** The model produced a function call that could not be parsed (Gemini MALFORMED_FUNCTION_CALL). */
  | { readonly kind: "malformed"; readonly raw: string }
  /** The answer hit the output limit (length, max_tokens, max_output_tokens, incomplete). */
  | { readonly kind: "truncated"; readonly raw: string }
  /** The model or the provider's filters declined (refusal, content filter, safety). */
  | { readonly kind: "refused"; readonly raw: string }
  /** Anthropic paused a long server-tool turn; sending it back lets the model go on. */
  | { readonly kind: "paused" }
  /** The provider ended the response in error, or without any answer, for another reason. */
  | { readonly kind: "failed"; readonly raw: string };

const MALFORMED = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"]);

/**
 * Reads a response's finish reason. Tool calls and plain stops are normal; anything else is
 * handled on purpose so that no abnormal finish passes as success. An unknown reason with an
 * answer is taken as normal; one with nothing at all is a failure.
 */
export function classifyFinish(response: Response): FinishAction {
  const { reason, raw } = response.finishReason;
  const rawText = raw ?? reason;
  if (raw !== undefined && MALFORMED.has(raw)) return { kind: "malformed", raw };
  if (raw === "pause_turn") return { kind: "paused" };
  switch (reason) {
    case "stop":
    case "tool_calls":
      return { kind: "normal" };
    case "length":
      return { kind: "truncated", raw: rawText };
    case "content_filter":
      return { kind: "refused", raw: rawText };
    case "error":
      return { kind: "failed", raw: rawText };
    default:
      return response.message.content.length > 0 ? { kind: "normal" } : { kind: "failed", raw: rawText };
  }
}

/** The note sent with the one retry after a malformed function call. */
export const MALFORMED_CALL_NOTE =
  "Your last function call could not be parsed. Call the tool again with arguments that are one valid JSON object matching its schema.";

/** The note that asks the model to go on after its answer hit the output limit. */
export const CONTINUE_NOTE =
  "Your previous answer was cut off at the output limit. Continue exactly where it stopped, without repeating what you already wrote.";
