import type { ContentPart, ImageData, ToolCallData, ToolResultDocument, Usage } from "@attractor/llm";

/**
 * One entry of a session's history. Every turn is plain JSON-serialisable data, so a host can
 * store history as JSON lines and rebuild a Session from it (see Session.fromHistory).
 */
export type Turn = UserTurn | AssistantTurn | ToolResultsTurn | SystemTurn | SteeringTurn | SummaryTurn;

export type TurnKind = Turn["kind"];

export interface UserTurn {
  readonly kind: "user";
  readonly content: string;
  /** Images attached to the input (multimodal models). */
  readonly images?: readonly ImageData[];
  /** ISO 8601. */
  readonly timestamp: string;
}

export interface AssistantTurn {
  readonly kind: "assistant";
  /** The response's text. */
  readonly content: string;
  readonly toolCalls: readonly ToolCallData[];
  /** Concatenated reasoning text, when the model reported any. */
  readonly reasoning?: string;
  /**
   * The response's content parts as received (thinking blocks with signatures included), sent
   * back verbatim on the next request so providers can verify them.
   */
  readonly parts: readonly ContentPart[];
  readonly usage: Usage;
  readonly responseId?: string;
  readonly model?: string;
  readonly provider?: string;
  readonly finishReason?: string;
  readonly timestamp: string;
}

/**
 * One tool result as history stores it: the model's (truncated) copy of a CompletedToolCall's
 * output, converted to llm's ToolResultData when a request is built.
 */
export interface ToolResultRecord {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError: boolean;
  readonly image?: ImageData;
  /** A document sent in place of `content` to providers that take one (read_file on a PDF). */
  readonly document?: ToolResultDocument;
}

export interface ToolResultsTurn {
  readonly kind: "tool_results";
  /** In the order the calls were made. */
  readonly results: readonly ToolResultRecord[];
  readonly timestamp: string;
}

export interface SystemTurn {
  readonly kind: "system";
  readonly content: string;
  readonly timestamp: string;
}

/** A message injected between tool rounds; sent to the model as a user-role message. */
export interface SteeringTurn {
  readonly kind: "steering";
  readonly content: string;
  /** Who injected it: the host (steer()), the loop detector, or a hook (context, stop feedback). */
  readonly source: "host" | "loop_detection" | "hook";
  readonly timestamp: string;
}

/**
 * What context compaction left in place of the older turns; sent to the model as a user-role
 * message. The original task and every user instruction are kept verbatim beside the model's
 * summary, so they survive any number of compactions.
 */
export interface SummaryTurn {
  readonly kind: "summary";
  /** The whole text the model receives: task, instructions, files touched and the summary. */
  readonly content: string;
  /** The conversation's first input, verbatim. */
  readonly task: string;
  /** Every later user input and host steering message, verbatim, in order. */
  readonly instructions: readonly string[];
  /** Files the summarised turns changed through tools. */
  readonly filesTouched: readonly string[];
  /** The model's structured summary: decisions, discoveries, work done, next steps. */
  readonly summary: string;
  /** How many turns it replaced (earlier summaries included). */
  readonly replacedTurns: number;
  /** How many model responses were among them, so turn limits still count them. */
  readonly replacedResponses: number;
  readonly timestamp: string;
}
