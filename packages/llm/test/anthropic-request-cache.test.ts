import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { frames, startWireServer, textStreamEvents, type WireServer } from "../src/testing/index.js";
import {
  assistantMessage,
  type Message,
  type Request,
  type StreamEvent,
  systemMessage,
  toolResultMessage,
  userMessage,
} from "../src/types/index.js";

// The adapter keeps each message's translation and the encoded messages of a conversation between
// requests. These tests send conversations that grow, are rewritten and are cut back, and check
// that every body the server receives is exactly what a fresh translation gives.

let server: WireServer;
let adapter: AnthropicAdapter;
beforeAll(async () => {
  server = await startWireServer(() => ({ kind: "sse", frames: frames(textStreamEvents) }));
  adapter = new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: server.url });
});
afterAll(() => server.close());

const tool = {
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] },
};

async function send(messages: readonly Message[], extra: Partial<Request> = {}) {
  const events: StreamEvent[] = [];
  for await (const e of adapter.stream({ model: "claude-haiku-4-5", messages, tools: [tool], ...extra }))
    events.push(e);
  expect(events.at(-1)?.type).toBe("finish");
  return server.requests.at(-1)?.body;
}

/** The same conversation made of new objects: what a process that never sent it would translate. */
const fresh = (messages: readonly Message[]): Message[] => structuredClone(messages) as Message[];

const round = (i: number): Message[] => [
  {
    role: "assistant",
    content: [
      {
        kind: "tool_call",
        toolCall: { id: `call_${i}`, name: "read_file", arguments: { file_path: `f${i}` } },
      },
    ],
  },
  toolResultMessage(`call_${i}`, `content of f${i}`, false, { name: "read_file" }),
];

const markedBlocks = (body: { messages: { content: { cache_control?: unknown }[] }[] }) =>
  body.messages.flatMap((m, i) => m.content.flatMap((b, j) => (b.cache_control ? [`${i}.${j}`] : [])));

describe("Anthropic request caching", () => {
  it("a growing conversation is sent as a fresh translation would send it, breakpoints moving along", async () => {
    const history: Message[] = [systemMessage("You are terse."), userMessage("read the files")];
    const bodies = [];
    for (let i = 0; i < 6; i++) {
      history.push(...round(i));
      const body = await send(history);
      expect(body).toEqual(await send(fresh(history)));
      bodies.push(body);
    }
    // Only the last two user turns carry a breakpoint: earlier ones lose theirs in later requests.
    expect(markedBlocks(bodies.at(-1))).toEqual(["10.0", "12.0"]);
    expect(markedBlocks(bodies.at(-2))).toEqual(["8.0", "10.0"]);
    // The messages the caller holds are never changed by the translation or the markers.
    expect(JSON.stringify(history)).not.toContain("cache_control");
  });

  it("a rewritten history (compaction, an edited turn) and a rewound one send the new content", async () => {
    const base: Message[] = [userMessage("start")];
    for (let i = 0; i < 5; i++) base.push(...round(i));
    await send(base);
    // An edited turn in the middle: a new message object in place of the old.
    const edited = [...base];
    edited[3] = assistantMessage("a summary instead of the call");
    edited.splice(4, 1);
    const editedBody = await send(edited);
    expect(editedBody).toEqual(await send(fresh(edited)));
    expect(JSON.stringify(editedBody)).toContain("a summary instead of the call");
    // Compaction: a summary replaces the first turns; the rest are the same objects as before.
    const compacted = [userMessage("summary of earlier work"), ...base.slice(5)];
    expect(await send(compacted)).toEqual(await send(fresh(compacted)));
    // Rewound: cut back to an earlier point, then continued differently.
    const rewound = [...base.slice(0, 3), userMessage("do something else")];
    const rewoundBody = await send(rewound);
    expect(rewoundBody).toEqual(await send(fresh(rewound)));
    expect(rewoundBody.messages).toHaveLength(3);
    // And the first, longer conversation still comes out whole after all that.
    expect(await send(base)).toEqual(await send(fresh(base)));
  });

  it("the system prompt and tools follow their changes; provider options' lists are not changed", async () => {
    const history = [systemMessage("first prompt"), userMessage("hi")];
    expect((await send(history)).system[0].text).toBe("first prompt");
    const changed = [systemMessage("second prompt"), history[1] as Message];
    expect((await send(changed)).system[0].text).toBe("second prompt");
    const other = { ...tool, description: "Read a file, changed" };
    const body = await send(changed, { tools: [other] });
    expect(body.tools[0].description).toBe("Read a file, changed");
    const system = [{ type: "text", text: "from options" }];
    const withOptions = await send(changed, { providerOptions: { anthropic: { system } } });
    expect(withOptions.system).toEqual([
      { type: "text", text: "from options", cache_control: { type: "ephemeral" } },
    ]);
    expect(system).toEqual([{ type: "text", text: "from options" }]);
  });

  it("turns merged across requests (parallel results, a steering note after results) come out as fresh", async () => {
    const calls = (...ids: string[]): Message => ({
      role: "assistant",
      content: ids.map((id) => ({
        kind: "tool_call",
        toolCall: { id, name: "read_file", arguments: { file_path: id } },
      })),
    });
    const result = (id: string) => toolResultMessage(id, `content of ${id}`, false, { name: "read_file" });
    const history: Message[] = [userMessage("start"), calls("a", "b"), result("a"), result("b")];
    const steps: Message[][] = [
      [userMessage("a steering note")],
      [calls("c"), userMessage("a note before the result"), result("c")],
      [calls("d", "e"), result("d"), result("e"), userMessage("after")],
    ];
    expect(await send(history)).toEqual(await send(fresh(history)));
    for (const step of steps) {
      history.push(...step);
      const body = await send(history);
      expect(body).toEqual(await send(fresh(history)));
    }
    const last = (await send(history)).messages;
    // Results first within a user turn, then the text that came with them.
    expect(last.at(-1).content.map((b: { type: string }) => b.type)).toEqual([
      "tool_result",
      "tool_result",
      "text",
    ]);
  });
});
