// One OpenAI Responses API streaming reply as SSE text, for the benchmarks' zero-latency model
// servers: a function call (`call: [name, args]`) or a text message, framed as the Responses API
// streams them (created, in_progress, output item added, deltas, item done, completed); deltas of
// `DELTA` characters when that is set.

import { pieces } from "./anthropic-sse.mjs";

const frame = (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** The SSE body of response `n`: a call of `call[0]` with arguments `call[1]` when given, else `text`. */
export function responsesReply({ n, call, text = "done", model = "bench-model" }) {
  const item = call
    ? {
        type: "function_call",
        id: `fc_${n}`,
        call_id: `call_${n}`,
        name: call[0],
        arguments: JSON.stringify(call[1]),
        status: "completed",
      }
    : {
        type: "message",
        id: `msg_${n}`,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text, annotations: [] }],
      };
  const response = {
    id: `resp_${n}`,
    object: "response",
    created_at: 1_741_476_542,
    status: "completed",
    error: null,
    incomplete_details: null,
    model,
    output: [item],
    usage: {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 110,
    },
  };
  let seq = 0;
  const events = [];
  const ev = (e) => events.push(frame({ ...e, sequence_number: seq++ }));
  const shell = { ...response, status: "in_progress", output: [], usage: null };
  ev({ type: "response.created", response: shell });
  ev({ type: "response.in_progress", response: shell });
  if (call) {
    ev({
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, arguments: "", status: "in_progress" },
    });
    for (const delta of pieces(item.arguments))
      ev({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: 0, delta });
    ev({
      type: "response.function_call_arguments.done",
      item_id: item.id,
      output_index: 0,
      arguments: item.arguments,
    });
  } else {
    ev({
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress", content: [] },
    });
    const part = { type: "output_text", text: "", annotations: [] };
    ev({ type: "response.content_part.added", item_id: item.id, output_index: 0, content_index: 0, part });
    for (const delta of pieces(text))
      ev({
        type: "response.output_text.delta",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
      });
    ev({ type: "response.output_text.done", item_id: item.id, output_index: 0, content_index: 0, text });
    ev({
      type: "response.content_part.done",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: item.content[0],
    });
  }
  ev({ type: "response.output_item.done", output_index: 0, item });
  ev({ type: "response.completed", response });
  return events.join("");
}
