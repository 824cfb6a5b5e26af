// One Anthropic Messages streaming reply as SSE text, for the benchmarks' zero-latency model
// servers: a tool_use block calling `tool` (`echo` by default) with `args`, or a text block, each
// streamed in deltas of `DELTA` characters when that is set (see pieces()).

const frame = (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * `text` cut into pieces of `size` characters (the whole text when size is 0): real providers
 * stream a reply in many small events (about 24 characters each), and a client's cost per round
 * grows with their number. `DELTA=<n>` in the environment sets the size for every bench.
 */
export function pieces(text, size = Number(process.env.DELTA ?? 0)) {
  if (!(size > 0) || text.length <= size) return [text];
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The SSE body of message `n`: a call of `tool` with `args` when given, else `text`. */
export function anthropicReply({ n, model, args, tool = "echo", text = "done", inputTokens, outputTokens }) {
  const blocks = args
    ? [
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: `toolu_${n}`, name: tool, input: {} },
        },
        ...pieces(JSON.stringify(args)).map((partial_json) => ({
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json },
        })),
        { type: "content_block_stop", index: 0 },
      ]
    : [
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        ...pieces(text).map((piece) => ({
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: piece },
        })),
        { type: "content_block_stop", index: 0 },
      ];
  return [
    {
      type: "message_start",
      message: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    },
    ...blocks,
    {
      type: "message_delta",
      delta: { stop_reason: args ? "tool_use" : "end_turn" },
      usage: { output_tokens: outputTokens },
    },
    { type: "message_stop" },
  ]
    .map(frame)
    .join("");
}
