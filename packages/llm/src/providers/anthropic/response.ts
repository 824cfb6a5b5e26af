import type { RateLimitInfo, Response } from "../../types/index.js";
import { StreamTranslator, type WireEvent } from "./stream.js";

/**
 * Replays a complete Messages API response as the stream events that would have carried it,
 * so complete() and stream() share one translation.
 */
export function messageToWireEvents(message: WireEvent): WireEvent[] {
  const content: WireEvent[] = Array.isArray(message.content) ? message.content : [];
  const events: WireEvent[] = [
    { type: "message_start", message: { ...message, content: [], stop_reason: null } },
  ];
  content.forEach((block, index) => {
    switch (block.type) {
      case "text":
        events.push({
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "" },
        });
        events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
        for (const citation of Array.isArray(block.citations) ? block.citations : []) {
          events.push({ type: "content_block_delta", index, delta: { type: "citations_delta", citation } });
        }
        break;
      case "tool_use":
        events.push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
        });
        break;
      case "thinking":
        events.push({
          type: "content_block_start",
          index,
          content_block: { ...block, thinking: "", signature: "" },
        });
        events.push({
          type: "content_block_delta",
          index,
          delta: { type: "thinking_delta", thinking: block.thinking },
        });
        if (typeof block.signature === "string" && block.signature !== "") {
          events.push({
            type: "content_block_delta",
            index,
            delta: { type: "signature_delta", signature: block.signature },
          });
        }
        break;
      default:
        events.push({ type: "content_block_start", index, content_block: block });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: message.stop_reason ?? null, stop_sequence: message.stop_sequence ?? null },
    usage: message.usage ?? {},
  });
  events.push({ type: "message_stop" });
  return events;
}

/** Our Response for a complete Messages API response; `raw` keeps the wire message. */
export function responseFromMessage(message: WireEvent, rateLimit?: RateLimitInfo): Response {
  const translator = new StreamTranslator(rateLimit);
  for (const event of messageToWireEvents(message)) {
    for (const out of translator.push(event)) {
      if (out.type === "finish") return { ...out.response, raw: message };
    }
  }
  // messageToWireEvents always ends with message_stop, which yields `finish`.
  throw new Error("unreachable: replayed message produced no finish event");
}
