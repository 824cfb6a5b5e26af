import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AnthropicAdapter,
  GeminiAdapter,
  OpenAIAdapter,
  OpenAICompatibleAdapter,
  type ProviderAdapter,
  type StreamEvent,
  userMessage,
} from "../src/index.js";
import {
  callItem,
  chatUsage,
  chunkFrames,
  errorBody,
  frames,
  messageItem,
  type Reply,
  responseObject,
  sse,
  startWireServer,
  streamChunkFrames,
  streamEventsFor,
  streamFrames,
  usage,
  usageMetadata,
  type WireServer,
} from "../src/testing/index.js";

// Each protocol's stream, read through its adapter, gives the same events whether the server
// sends it whole, byte by byte, in random pieces or with CRLF line ends.

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(async () => {
  await server.close();
});

// BMP characters only: the test server cuts its text by UTF-16 unit, which would split a surrogate pair.
const TEXT = "Grüße, 世界 € — a reply long enough to come in several deltas";
const ARGS = JSON.stringify({ path: "src/naïve.ts", note: "日本語" });

interface Protocol {
  readonly name: string;
  readonly adapter: () => ProviderAdapter;
  readonly model: string;
  readonly frames: readonly string[];
  /** The frames of a stream that fails with an error event after some text. */
  readonly failing: readonly string[];
}

const anthropicEvents = streamEventsFor(
  [
    { type: "text", text: TEXT },
    { type: "tool_use", id: "toolu_1", name: "read_file", input: JSON.parse(ARGS) },
  ],
  "tool_use",
  { input: 20, output: 9 },
);

const chat = {
  id: "chatcmpl-1",
  content: TEXT,
  calls: [{ id: "call_1", name: "read_file", args: ARGS }],
  finish: "tool_calls",
  usage: chatUsage(20, 9),
};

const PROTOCOLS: readonly Protocol[] = [
  {
    name: "Anthropic Messages",
    adapter: () => new AnthropicAdapter({ apiKey: "k", baseUrl: server.url, env: {} }),
    model: "claude-sonnet-4-5",
    frames: frames(anthropicEvents),
    failing: [
      ...frames(anthropicEvents.slice(0, 4)),
      sse(errorBody("overloaded_error", "Overloaded"), { event: "error" }),
    ],
  },
  {
    name: "OpenAI Responses",
    adapter: () => new OpenAIAdapter({ apiKey: "k", baseUrl: `${server.url}/v1`, env: {} }),
    model: "gpt-5.2",
    frames: streamFrames(
      responseObject(
        "resp_1",
        [messageItem("msg_1", TEXT), callItem("fc_1", "call_1", "read_file", ARGS)],
        usage(20, 9),
      ),
    ),
    failing: [
      ...streamFrames(responseObject("resp_1", [messageItem("msg_1", TEXT)], usage(20, 9))).slice(0, 5),
      sse({ error: { message: "The server had an error", type: "server_error" } }),
    ],
  },
  {
    name: "Chat Completions",
    adapter: () => new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, env: {} }),
    model: "qwen3:8b",
    frames: chunkFrames(chat),
    failing: [
      ...chunkFrames(chat).slice(0, 3),
      sse({ error: { message: "upstream failed", type: "server_error", code: 500 } }),
    ],
  },
  {
    name: "Gemini",
    adapter: () => new GeminiAdapter({ apiKey: "k", baseUrl: server.url, env: {} }),
    model: "gemini-2.5-flash",
    frames: streamChunkFrames(
      [{ text: TEXT }, { functionCall: { name: "read_file", args: JSON.parse(ARGS) } }],
      usageMetadata(20, 9),
    ),
    failing: [
      ...streamChunkFrames([{ text: TEXT }], usageMetadata(20, 9)).slice(0, 2),
      sse({ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }),
    ],
  },
];

async function events(p: Protocol, reply: Reply): Promise<StreamEvent[]> {
  server.setHandler([reply]);
  const out: StreamEvent[] = [];
  for await (const e of p.adapter().stream({ model: p.model, messages: [userMessage("go")] })) out.push(e);
  // Gemini sends no call ids, so the adapter makes random ones.
  return JSON.parse(JSON.stringify(out).replace(/call_[0-9a-f-]{36}/g, "call_made"));
}

async function failure(p: Protocol, reply: Reply): Promise<{ name: string; events: number }> {
  server.setHandler([reply]);
  let n = 0;
  try {
    for await (const _ of p.adapter().stream({ model: p.model, messages: [userMessage("go")] })) n++;
  } catch (err) {
    return { name: (err as Error).constructor.name, events: n };
  }
  throw new Error(`${p.name}: the failing stream ended without an error`);
}

const crlf = (fs: readonly string[]) => fs.map((f) => f.replace(/\n/g, "\r\n"));

describe.each(PROTOCOLS)("$name stream, split anywhere", (p) => {
  it("gives the same events whole, in five-character pieces, in random pieces and with CRLF", async () => {
    const whole = await events(p, { kind: "sse", frames: p.frames, chunking: { mode: "whole" } });
    expect(whole.at(-1)?.type).toBe("finish");
    expect(whole.filter((e) => e.type === "text_delta").length).toBeGreaterThan(1);
    expect(await events(p, { kind: "sse", frames: p.frames, chunking: { mode: "fixed", size: 5 } })).toEqual(
      whole,
    );
    for (const seed of [1, 2, 3]) {
      const reply: Reply = { kind: "sse", frames: p.frames, chunking: { mode: "random", max: 40, seed } };
      expect(await events(p, reply), `seed ${seed}`).toEqual(whole);
    }
    expect(
      await events(p, {
        kind: "sse",
        frames: crlf(p.frames),
        chunking: { mode: "random", max: 13, seed: 9 },
      }),
    ).toEqual(whole);
  });

  it("fails an error event with the same error, after the same events, however it is split", async () => {
    const whole = await failure(p, { kind: "sse", frames: p.failing, chunking: { mode: "whole" } });
    expect(whole.events).toBeGreaterThan(0);
    for (const seed of [1, 2, 3]) {
      const reply: Reply = { kind: "sse", frames: p.failing, chunking: { mode: "random", max: 11, seed } };
      expect(await failure(p, reply), `seed ${seed}`).toEqual(whole);
    }
  });
});
