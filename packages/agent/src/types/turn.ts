import type { ContentPart, ImageData, ToolCallData, Usage } from "@attractor/llm";

/**
 * One entry of a session's history. Every turn is plain JSON-serialisable data, so a host can
 * store history as JSON lines and rebuild a Session from it (see Session.fromHistory).
 */
export type Turn = UserTurn | AssistantTurn | ToolResultsTurn | SystemTurn | SteeringTurn;

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

/** The result of one tool call as the model saw it (truncated output). */
export interface ToolResultRecord {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError: boolean;
  readonly image?: ImageData;
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
  /** Who injected it: the host (steer()) or the loop detector. */
  readonly source: "host" | "loop_detection";
  readonly timestamp: string;
}
