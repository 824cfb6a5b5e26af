// Cost per SSE event of the streaming path, socket to event, for each protocol the model client
// speaks (Anthropic Messages, OpenAI Responses, Chat Completions, Gemini): a zero-latency server on
// 127.0.0.1 streams one reply of EVENTS text deltas of DELTA characters each (as real providers
// stream, about 24), and the client's stream() is read to its end, every event passed through a
// StreamAccumulator as the agent does. Measured: wall time and the process's CPU time per event.
// Baseline (the floor): a bare node:http client on the same bytes that splits the SSE frames,
// JSON.parse()s each data line and appends the text. The adapters send the request through each
// provider's official SDK and parse the body's events themselves (providers/shared/sse-parser.ts);
// the ratio to the floor is what that parsing and our translation and accumulation add per event.
// Run after `npm run build`: node bench/stream-events.mjs   (EVENTS=2000, DELTA=24, RUNS=7)
import { createServer, request as httpRequest } from "node:http";
import {
  AnthropicAdapter,
  Client,
  GeminiAdapter,
  OpenAIAdapter,
  OpenAICompatibleAdapter,
  responseText,
  StreamAccumulator,
  userMessage,
} from "../packages/llm/dist/index.js";

const EVENTS = Number(process.env.EVENTS ?? 2000);
const DELTA = Number(process.env.DELTA ?? 24);
const RUNS = Number(process.env.RUNS ?? 7);
const piece = (i) => `w${String(i).padStart(5, "0")} `.repeat(Math.ceil(DELTA / 7)).slice(0, DELTA);
const frame = (data, event) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

/** The SSE body of one reply of EVENTS deltas, per protocol. */
const BODIES = {
  anthropic: () => {
    const out = [
      frame(
        {
          type: "message_start",
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [],
            stop_reason: null,
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        },
        "message_start",
      ),
      frame(
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        "content_block_start",
      ),
    ];
    for (let i = 0; i < EVENTS; i++)
      out.push(
        frame(
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece(i) } },
          "content_block_delta",
        ),
      );
    out.push(frame({ type: "content_block_stop", index: 0 }, "content_block_stop"));
    out.push(
      frame(
        { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: EVENTS } },
        "message_delta",
      ),
    );
    out.push(frame({ type: "message_stop" }, "message_stop"));
    return out.join("");
  },
  openai: () => {
    let seq = 0;
    const ev = (e) => frame({ ...e, sequence_number: seq++ }, e.type);
    const text = Array.from({ length: EVENTS }, (_, i) => piece(i)).join("");
    const item = {
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    };
    const response = {
      id: "resp_1",
      object: "response",
      created_at: 1,
      status: "completed",
      error: null,
      incomplete_details: null,
      model: "gpt-5.2",
      output: [item],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: EVENTS,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 10 + EVENTS,
      },
    };
    const shell = { ...response, status: "in_progress", output: [], usage: null };
    const out = [
      ev({ type: "response.created", response: shell }),
      ev({ type: "response.in_progress", response: shell }),
    ];
    out.push(
      ev({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, status: "in_progress", content: [] },
      }),
    );
    out.push(
      ev({
        type: "response.content_part.added",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      }),
    );
    for (let i = 0; i < EVENTS; i++)
      out.push(
        ev({
          type: "response.output_text.delta",
          item_id: "msg_1",
          output_index: 0,
          content_index: 0,
          delta: piece(i),
          logprobs: [],
        }),
      );
    out.push(
      ev({ type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text }),
    );
    out.push(
      ev({
        type: "response.content_part.done",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        part: item.content[0],
      }),
    );
    out.push(ev({ type: "response.output_item.done", output_index: 0, item }));
    out.push(ev({ type: "response.completed", response }));
    return out.join("");
  },
  "openai-compatible": () => {
    const chunk = (delta, finish = null, usage) =>
      frame({
        id: "c1",
        object: "chat.completion.chunk",
        created: 1,
        model: "bench",
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...(usage && { usage }),
      });
    const out = [chunk({ role: "assistant", content: "" })];
    for (let i = 0; i < EVENTS; i++) out.push(chunk({ content: piece(i) }));
    out.push(chunk({}, "stop", { prompt_tokens: 10, completion_tokens: EVENTS, total_tokens: 10 + EVENTS }));
    return `${out.join("")}data: [DONE]\n\n`;
  },
  gemini: () => {
    const out = [];
    for (let i = 0; i < EVENTS; i++)
      out.push(
        frame({
          candidates: [{ content: { role: "model", parts: [{ text: piece(i) }] }, index: 0 }],
          modelVersion: "gemini-2.5-flash",
        }),
      );
    out.push(
      frame({
        candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: EVENTS, totalTokenCount: 10 + EVENTS },
      }),
    );
    return out.join("");
  },
};
const bodies = Object.fromEntries(Object.entries(BODIES).map(([k, f]) => [k, f()]));
const protocolOf = (url) =>
  url.includes("/messages")
    ? "anthropic"
    : url.includes("/responses")
      ? "openai"
      : url.includes("/chat/completions")
        ? "openai-compatible"
        : "gemini";

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    // Written in pieces of a few events each, as a real server's socket delivers them.
    const body = bodies[protocolOf(req.url)];
    for (let i = 0; i < body.length; i += 4096) res.write(body.slice(i, i + 4096));
    res.end();
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const client = new Client({
  providers: {
    anthropic: new AnthropicAdapter({ apiKey: "bench", baseUrl: base }),
    openai: new OpenAIAdapter({ apiKey: "bench", baseUrl: `${base}/v1` }),
    "openai-compatible": new OpenAICompatibleAdapter({ apiKey: "bench", baseUrl: `${base}/v1` }),
    gemini: new GeminiAdapter({ apiKey: "bench", baseUrl: base }),
  },
});
const MODELS = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5.2",
  "openai-compatible": "bench",
  gemini: "gemini-2.5-flash",
};
const expected = Array.from({ length: EVENTS }, (_, i) => piece(i)).join("");

/** One stream() read to its end through an accumulator; checks the text. */
async function viaClient(provider) {
  const acc = new StreamAccumulator();
  for await (const event of client.stream({
    provider,
    model: MODELS[provider],
    messages: [userMessage("go")],
  }))
    acc.process(event);
  if (responseText(acc.response()) !== expected) throw new Error(`${provider}: the streamed text differs`);
}

/** The floor: node:http, SSE frames split by hand, each data line parsed, the text appended. */
function viaFloor(provider) {
  const path = {
    anthropic: "/v1/messages",
    openai: "/v1/responses",
    "openai-compatible": "/v1/chat/completions",
    gemini: "/v1beta/models/x:streamGenerateContent?alt=sse",
  }[provider];
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        res.setEncoding("utf8");
        let buffer = "";
        let text = "";
        res.on("data", (chunk) => {
          buffer += chunk;
          let end = buffer.indexOf("\n\n");
          while (end !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.slice(block.indexOf("data: ") + 6);
            if (data !== "[DONE]") {
              const e = JSON.parse(data);
              text +=
                e.delta?.text ??
                (typeof e.delta === "string" ? e.delta : undefined) ??
                e.choices?.[0]?.delta?.content ??
                e.candidates?.[0]?.content?.parts?.[0]?.text ??
                "";
            }
            end = buffer.indexOf("\n\n");
          }
        });
        res.on("end", () =>
          text === expected ? resolve() : reject(new Error(`floor ${provider}: text differs`)),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ stream: true }));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function measure(fn) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return { wall: ((performance.now() - t0) * 1000) / EVENTS, cpu: (c.user + c.system) / EVENTS };
}

console.log(
  `cost per SSE event, ${EVENTS} text deltas of ${DELTA} characters, median of ${RUNS} (µs per event: wall, CPU):`,
);
for (const provider of Object.keys(BODIES)) {
  const runs = { client: [], floor: [] };
  // Warm-up: the SDK's first load and the JIT are not per-event costs.
  await viaClient(provider);
  await viaFloor(provider);
  for (let i = 0; i < RUNS; i++) {
    runs.client.push(await measure(() => viaClient(provider)));
    runs.floor.push(await measure(() => viaFloor(provider)));
  }
  const w = (k) => median(runs[k].map((r) => r.wall));
  const c = (k) => median(runs[k].map((r) => r.cpu));
  console.log(
    `  ${provider.padEnd(18)} client ${w("client").toFixed(2).padStart(6)} µs  CPU ${c("client").toFixed(2).padStart(6)} µs   floor ${w("floor").toFixed(2).padStart(6)} µs  CPU ${c("floor").toFixed(2).padStart(6)} µs   client/floor ${(w("client") / w("floor")).toFixed(2)} (CPU ${(c("client") / c("floor")).toFixed(2)})`,
  );
}
await client.close();
server.close();
