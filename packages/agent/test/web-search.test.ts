// web_search run inside the model's response (createProviderWebSearchTool): where the provider
// runs search it goes as the provider tool (never as a function), the searches and citations reach
// the events, and the provider's own blocks go back with the next request; where it runs none the
// tool is not offered and the session says so, and a model that calls it anyway gets an error,
// never results. The function tool that searches in a side request is tested in
// web-search-tool.test.ts.
import { AnthropicAdapter, Client, OpenAIAdapter, OpenAICompatibleAdapter } from "@attractor/llm";
import {
  chunkReply,
  citedMessageItem,
  ENCRYPTED_CONTENT,
  ENCRYPTED_INDEX,
  frames,
  messageDelta,
  type Reply,
  responseObject,
  startWireServer,
  streamFrames,
  usage,
  type WireServer,
  webSearchCallItem,
  webSearchMessage,
  webSearchStreamEvents,
} from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeCodeNamesOf, toolNamesFor } from "../src/customization/claude-code-names.js";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createAnthropicProfile } from "../src/profiles/anthropic/index.js";
import { createGeminiProfile } from "../src/profiles/gemini/index.js";
import { createOpenAIProfile } from "../src/profiles/openai/index.js";
import { createOpenAICompatibleProfile } from "../src/profiles/openai-compatible/index.js";
import { Session } from "../src/session/session.js";
import { createProviderWebSearchTool } from "../src/tools/web-search/tool.js";
import type { SessionEvent, SessionEventOf } from "../src/types/events.js";
import { tempDir } from "./support/fixtures.js";

const WHOLE = { mode: "whole" } as const;
let server: WireServer;
let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  server = await startWireServer([]);
  ({ dir, remove } = await tempDir());
});
afterAll(async () => {
  await server.close();
  await remove();
});

type Json = Record<string, unknown>;

/** The documented search stream, ending in a shell call instead of the end of the turn. */
const searchThenShell: Reply = {
  kind: "sse",
  chunking: WHOLE,
  frames: frames([
    ...webSearchStreamEvents.slice(0, -2),
    {
      type: "content_block_start",
      index: 5,
      content_block: { type: "tool_use", id: "toolu_sh", name: "shell", input: {} },
    },
    {
      type: "content_block_delta",
      index: 5,
      delta: { type: "input_json_delta", partial_json: '{"command":"echo noted"}' },
    },
    { type: "content_block_stop", index: 5 },
    messageDelta("tool_use", 40),
    { type: "message_stop" },
  ] as Json[]),
};
const finalText: Reply = {
  kind: "sse",
  chunking: WHOLE,
  frames: frames([
    ...webSearchStreamEvents.slice(0, 1),
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Done." } },
    { type: "content_block_stop", index: 0 },
    messageDelta("end_turn"),
    { type: "message_stop" },
  ] as Json[]),
};

function record(session: Session): SessionEvent[] {
  const events: SessionEvent[] = [];
  session.subscribe((e) => events.push(e));
  return events;
}
const textEnds = (events: readonly SessionEvent[]) =>
  events.filter((e): e is SessionEventOf<"assistant_text_end"> => e.kind === "assistant_text_end");

describe("web_search where the provider runs it", () => {
  it("Anthropic: offered as web_search_20250305, reported in events, sent back verbatim after a tool round", async () => {
    server.setHandler([searchThenShell, finalText]);
    server.requests.length = 0;
    const profile = createAnthropicProfile("claude-sonnet-4-5");
    profile.toolRegistry.register(
      createProviderWebSearchTool({ maxUses: 2, blockedDomains: ["example.com"] }),
    );
    const session = new Session({
      profile,
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client: new Client({
        providers: { anthropic: new AnthropicAdapter({ apiKey: "k", baseUrl: server.url, env: {} }) },
      }),
    });
    const events = record(session);
    await session.submit("When was Claude Shannon born? Then note it.");
    await session.close();

    expect(server.requests).toHaveLength(2);
    const first = server.requests[0]!.body;
    const search = first.tools.filter((t: Json) => t.name === "web_search");
    expect(search).toEqual([
      expect.objectContaining({
        type: "web_search_20250305",
        name: "web_search",
        max_uses: 2,
        blocked_domains: ["example.com"],
      }),
    ]);
    // Never also a function of that name, which the model could call for made-up results.
    expect(first.tools.some((t: Json) => t.name === "web_search" && "input_schema" in t)).toBe(false);

    const [searched] = textEnds(events);
    expect(searched!.data.webSearches).toEqual([
      {
        id: "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
        provider: "anthropic",
        queries: ["claude shannon birth date"],
        results: [
          {
            url: "https://en.wikipedia.org/wiki/Claude_Shannon",
            title: "Claude Shannon - Wikipedia",
            pageAge: "April 30, 2025",
          },
        ],
        status: "completed",
      },
    ]);
    expect(searched!.data.citations).toEqual([
      expect.objectContaining({ url: "https://en.wikipedia.org/wiki/Claude_Shannon", provider: "anthropic" }),
    ]);
    expect(JSON.stringify(events)).not.toContain(ENCRYPTED_CONTENT);

    const assistant = server.requests[1]!.body.messages.find((m: Json) => m.role === "assistant");
    expect(assistant.content.slice(0, 5)).toEqual(webSearchMessage.content);
    expect(JSON.stringify(assistant)).toContain(ENCRYPTED_INDEX);
    expect(server.violations).toEqual([]);
  });

  it("OpenAI Responses: offered as web_search, its call and citations reach the events", async () => {
    const answer = "Claude Shannon was born on April 30, 1916.";
    const wire = responseObject(
      "resp_ws",
      [
        webSearchCallItem("ws_1", "claude shannon birth date", [
          "https://en.wikipedia.org/wiki/Claude_Shannon",
        ]),
        citedMessageItem("msg_1", answer, [
          { url: "https://en.wikipedia.org/wiki/Claude_Shannon", title: "Claude Shannon", start: 0, end: 41 },
        ]),
      ],
      usage(100, 20),
    );
    server.setHandler([{ kind: "sse", chunking: WHOLE, frames: streamFrames(wire) }]);
    server.requests.length = 0;
    const profile = createOpenAIProfile("gpt-5.2");
    profile.toolRegistry.register(createProviderWebSearchTool({ searchContextSize: "low" }));
    const session = new Session({
      profile,
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client: new Client({
        providers: { openai: new OpenAIAdapter({ apiKey: "k", baseUrl: `${server.url}/v1`, env: {} }) },
      }),
    });
    const events = record(session);
    await session.submit("When was Claude Shannon born?");
    await session.close();
    const body = server.requests[0]!.body;
    expect(body.tools.filter((t: Json) => t.type === "web_search")).toEqual([
      { type: "web_search", search_context_size: "low" },
    ]);
    expect(body.tools.some((t: Json) => t.name === "web_search")).toBe(false);
    const [end] = textEnds(events);
    expect(end!.data.text).toBe(answer);
    expect(end!.data.webSearches?.map((s) => s.results)).toEqual([
      [{ url: "https://en.wikipedia.org/wiki/Claude_Shannon" }],
    ]);
    expect(end!.data.citations?.map((c) => [c.url, c.startIndex, c.endIndex])).toEqual([
      ["https://en.wikipedia.org/wiki/Claude_Shannon", 0, 41],
    ]);
    expect(end!.data.usage.webSearches).toBe(1);
    expect(server.violations).toEqual([]);
  });
});

describe("web_search where the provider runs none", () => {
  it("an OpenAI-compatible server: not offered, and the session says why once", async () => {
    server.setHandler([
      chunkReply({ id: "c1", content: "No search here.", finish: "stop" }),
      chunkReply({ id: "c2", content: "Still none.", finish: "stop" }),
    ]);
    server.requests.length = 0;
    const profile = createOpenAICompatibleProfile("qwen3:8b");
    profile.toolRegistry.register(createProviderWebSearchTool());
    const session = new Session({
      profile,
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client: new Client({
        providers: {
          "openai-compatible": new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, env: {} }),
        },
      }),
    });
    const events = record(session);
    await session.submit("Search the web for the Node release schedule.");
    await session.submit("Again.");
    await session.close();
    expect(server.requests).toHaveLength(2);
    for (const r of server.requests) {
      const names = (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
      expect(names).not.toContain("web_search");
      expect(r.body.messages[0].content).not.toMatch(/\bweb_search\b/);
    }
    const warnings = events.filter(
      (e): e is SessionEventOf<"warning"> => e.kind === "warning" && e.data.message.includes("web_search"),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.data.message).toMatch(/web_search is not offered: the openai-compatible provider/);
  });

  it("Gemini: the agent does not offer it beside function tools", async () => {
    const profile = createGeminiProfile("gemini-2.5-pro");
    expect(profile.serverTools ?? []).not.toContain("web_search");
  });

  it("Claude Code's WebSearch names it in settings, hooks and commands", () => {
    expect(toolNamesFor("WebSearch")).toEqual(["web_search"]);
    expect(claudeCodeNamesOf("web_search")).toEqual(["WebSearch"]);
  });

  it("a model that calls it as a function gets an error saying search is unavailable", async () => {
    const tool = createProviderWebSearchTool();
    const env = new LocalExecutionEnvironment({ workingDirectory: dir });
    const out = await tool.executor({ query: "node 24" }, env, { toolCallId: "c1" });
    expect(out).toMatchObject({ isError: true, errorCode: "unavailable" });
    expect(typeof out === "string" ? out : out.output).toMatch(/not available/);
  });
});
