import type { Citation, OutputItemRef, ThinkingData, ToolCallData, WebSearchData } from "./content.js";
import type { FinishReason, Response, Usage } from "./response.js";

/**
 * One event of a streamed response. Text, reasoning and tool calls follow start / delta / end,
 * keyed by id so that concurrent segments can interleave. The stream always ends with `finish`,
 * whose response equals what complete() would have returned. Failures are thrown by the iterator
 * as SDKError subclasses; they are never yielded.
 */
export type StreamEvent =
  | { readonly type: "stream_start"; readonly id?: string; readonly model?: string }
  | { readonly type: "text_start"; readonly textId: string }
  | { readonly type: "text_delta"; readonly textId: string; readonly delta: string }
  /**
   * `thoughtSignature`: Gemini's signature on the segment's last part, kept on the text part;
   * `item`: the Responses output message the text belongs to, kept on the text part.
   */
  | {
      readonly type: "text_end";
      readonly textId: string;
      readonly thoughtSignature?: string;
      readonly item?: OutputItemRef;
    }
  | { readonly type: "reasoning_start"; readonly reasoningId: string }
  | { readonly type: "reasoning_delta"; readonly reasoningId: string; readonly delta: string }
  /** Carries the finished block, with its signature, so it can be round-tripped. */
  | { readonly type: "reasoning_end"; readonly reasoningId: string; readonly thinking: ThinkingData }
  | { readonly type: "redacted_reasoning"; readonly data: string }
  | { readonly type: "tool_call_start"; readonly id: string; readonly name: string }
  | { readonly type: "tool_call_delta"; readonly id: string; readonly argumentsDelta: string }
  | { readonly type: "tool_call_end"; readonly toolCall: ToolCallData }
  /**
   * A provider-run web search, as far as it has got; a later event with the same id (the result
   * after the call) replaces it in place.
   */
  | { readonly type: "web_search"; readonly webSearch: WebSearchData }
  /** A source cited by the text segment textId. */
  | { readonly type: "citation"; readonly textId: string; readonly citation: Citation }
  | {
      readonly type: "finish";
      readonly finishReason: FinishReason;
      readonly usage: Usage;
      readonly response: Response;
    }
  | { readonly type: "provider_event"; readonly raw: unknown };

export type StreamEventType = StreamEvent["type"];
