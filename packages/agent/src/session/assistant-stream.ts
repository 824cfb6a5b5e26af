import {
  type Response,
  responseReasoning,
  responseText,
  responseToolCalls,
  StreamError,
  type StreamEvent,
} from "@attractor/llm";
import { boundArgumentDepth } from "../tools/argument-depth.js";
import type { AssistantTurn } from "../types/turn.js";

/** Where streamed assistant output goes while it arrives. */
export interface AssistantStreamSink {
  /** Called once, when the first event arrives. */
  onStart(): void;
  onDelta(delta: string, channel: "text" | "reasoning"): void;
}

/**
 * Reads one model response from a stream, forwarding text and reasoning deltas, and returns the
 * final Response. This is the one place a stream becomes an assistant turn: a tool-calling mode
 * that parses calls out of text plugs in here.
 */
export async function readAssistantStream(
  stream: AsyncIterable<StreamEvent>,
  sink: AssistantStreamSink,
): Promise<Response> {
  let started = false;
  for await (const event of stream) {
    if (!started) {
      started = true;
      sink.onStart();
    }
    switch (event.type) {
      case "text_delta":
        if (event.delta !== "") sink.onDelta(event.delta, "text");
        break;
      case "reasoning_delta":
        if (event.delta !== "") sink.onDelta(event.delta, "reasoning");
        break;
      case "finish":
        return event.response;
      default:
        break;
    }
  }
  throw new StreamError("The model's stream ended without a finish event");
}

/** The history entry for a response. */
export function responseToTurn(response: Response, timestamp: string): AssistantTurn {
  const reasoning = responseReasoning(response);
  const { raw: _raw, ...usage } = response.usage;
  const bounded = boundArgumentDepth(responseToolCalls(response), response.message.content);
  // Copied to their length: arrays grown by push keep spare room (17 slots for one element), and
  // a long session holds thousands of turns.
  return {
    kind: "assistant",
    content: responseText(response),
    toolCalls: bounded.calls.slice(),
    ...(reasoning !== undefined && { reasoning }),
    parts: bounded.parts.slice(),
    usage,
    ...(response.id !== "" && { responseId: response.id }),
    model: response.model,
    provider: response.provider,
    finishReason: response.finishReason.reason,
    timestamp,
  };
}
