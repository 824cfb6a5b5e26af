// The web_search function tool: each call is a tool call the host sees (and may refuse), which
// searches in a side request to the provider carrying only its own search tool (every side request
// checked against the provider's published specification by the wire server), or through a
// SearXNG instance, and returns the answer with numbered sources.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AnthropicAdapter, Client, GeminiAdapter, OpenAIAdapter } from "@attractor/llm";
import {
  citedMessageItem,
  frames,
  generateContentBody,
  groundingMetadata,
  messageDelta,
  messageStart,
  type RecordedRequest,
  type Reply,
  responseObject,
  sse,
  startWireServer,
  streamFrames,
  usage,
  usageMetadata,
  type WireServer,
  webSearchCallItem,
  webSearchStreamEvents,
} from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createAnthropicProfile } from "../src/profiles/anthropic/index.js";
import { Session } from "../src/session/session.js";
import { modelWebSearcher } from "../src/tools/web-search/model-searcher.js";
import type { WebSearchReport } from "../src/tools/web-search/report.js";
import { searxngWebSearcher } from "../src/tools/web-search/searxng.js";
import { createWebSearchTool } from "../src/tools/web-search/tool.js";
import type { ToolOutput } from "../src/types/tool.js";
import { tempDir } from "./support/fixtures.js";

type Json = Record<string, unknown>;
const WHOLE = { mode: "whole" } as const;
const SHANNON = "https://en.wikipedia.org/wiki/Claude_Shannon";

let server: WireServer;
let searx: Server;
let searxUrl: string;
let searxReply: (url: URL) => { status: number; body: string } = () => ({ status: 200, body: "{}" });
let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  server = await startWireServer([]);
  searx = createServer((req, res) => {
    const { status, body } = searxReply(new URL(req.url ?? "/", "http://127.0.0.1"));
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => searx.listen(0, "127.0.0.1", resolve));
  searxUrl = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`;
  ({ dir, remove } = await tempDir());
});
afterAll(async () => {
  await server.close();
  await new Promise<void>((resolve) => searx.close(() => resolve()));
  await remove();
});

const env = () => new LocalExecutionEnvironment({ workingDirectory: dir });
const clientFor = (provider: "anthropic" | "openai" | "gemini") =>
  new Client({
    providers: {
      anthropic: new AnthropicAdapter({ apiKey: "k", baseUrl: server.url, env: {} }),
      openai: new OpenAIAdapter({ apiKey: "k", baseUrl: `${server.url}/v1`, env: {} }),
      gemini: new GeminiAdapter({ apiKey: "k", baseUrl: server.url, env: {} }),
    },
    defaultProvider: provider,
  });
const MODELS = { anthropic: "claude-sonnet-4-5", openai: "gpt-5.2", gemini: "gemini-2.5-flash" } as const;
const searchTool = (provider: "anthropic" | "openai" | "gemini") =>
  createWebSearchTool({
    search: modelWebSearcher(clientFor(provider), { model: MODELS[provider], provider }),
  });
async function run(tool: ReturnType<typeof createWebSearchTool>, args: Json): Promise<ToolOutput> {
  const out = await tool.executor(args, env(), { toolCallId: "c1" });
  return typeof out === "string" ? { output: out } : out;
}
const reportOf = (out: ToolOutput) => out.details?.webSearch as WebSearchReport;
const fresh = (replies: Reply[] | ((r: RecordedRequest) => Reply)) => {
  server.setHandler(replies);
  server.requests.length = 0;
};

const openaiAnswer = "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan.";
const openaiSearch: Reply = {
  kind: "sse",
  chunking: WHOLE,
  frames: streamFrames(
    responseObject(
      "resp_ws",
      [
        webSearchCallItem("ws_1", "claude shannon birth date", [
          SHANNON,
          "https://www.britannica.com/shannon",
        ]),
        citedMessageItem("msg_1", openaiAnswer, [
          { url: SHANNON, title: "Claude Shannon - Wikipedia", start: 0, end: 40 },
        ]),
      ],
      usage(100, 20),
    ),
  ),
};
const geminiAnswer = "Spain won Euro 2024, defeating England 2-1 in the final. It was their fourth title.";
const geminiSearch: Reply = {
  kind: "sse",
  chunking: WHOLE,
  frames: [
    sse({
      ...generateContentBody([{ text: geminiAnswer }], usageMetadata(12, 40)),
      candidates: [
        {
          content: { role: "model", parts: [{ text: geminiAnswer }] },
          finishReason: "STOP",
          index: 0,
          groundingMetadata: groundingMetadata(geminiAnswer),
        },
      ],
    }),
  ],
};

describe("web_search as a function tool that searches in a side request", () => {
  it("Anthropic: the session offers a function; the side request carries only web_search_20250305; the result numbers the sources", async () => {
    fresh((request) => {
      const tools = (request.body.tools ?? []) as Json[];
      if (tools.some((t) => t.type === "web_search_20250305"))
        return { kind: "sse", chunking: WHOLE, frames: frames(webSearchStreamEvents) };
      const results = JSON.stringify(request.body.messages).includes("tool_result");
      const n = server.requests.length;
      if (results)
        return {
          kind: "sse",
          chunking: WHOLE,
          frames: frames([
            messageStart({ input_tokens: 50 }, `msg_${n}`),
            { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
            { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Born 1916 [1]." } },
            { type: "content_block_stop", index: 0 },
            messageDelta("end_turn"),
            { type: "message_stop" },
          ]),
        };
      return {
        kind: "sse",
        chunking: WHOLE,
        frames: frames([
          messageStart({ input_tokens: 50 }, `msg_${n}`),
          {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "toolu_ws", name: "web_search", input: {} },
          },
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: '{"query":"claude shannon birth date"}' },
          },
          { type: "content_block_stop", index: 0 },
          messageDelta("tool_use"),
          { type: "message_stop" },
        ]),
      };
    });
    const profile = createAnthropicProfile("claude-sonnet-4-5");
    profile.toolRegistry.register(searchTool("anthropic"));
    const seenCalls: string[] = [];
    const session = new Session({
      profile,
      environment: env(),
      client: clientFor("anthropic"),
      config: {
        beforeToolCall: async (call) => {
          seenCalls.push(call.toolName);
          return undefined;
        },
      },
    });
    await session.submit("When was Claude Shannon born?");
    await session.close();

    expect(server.requests).toHaveLength(3);
    const [main, side, last] = server.requests.map((r) => r.body);
    // The conversation offers a function the host sees called...
    expect(main.tools.find((t: Json) => t.name === "web_search")).toMatchObject({
      input_schema: expect.any(Object),
    });
    expect(main.tools.some((t: Json) => t.type === "web_search_20250305")).toBe(false);
    expect(seenCalls).toEqual(["web_search"]);
    // ...and the side request carries the provider's search tool alone, and the query.
    expect(side.tools).toEqual([
      expect.objectContaining({ type: "web_search_20250305", name: "web_search", max_uses: 5 }),
    ]);
    expect(JSON.stringify(side.messages)).toContain("claude shannon birth date");
    const result = JSON.stringify(last.messages.at(-1));
    expect(result).toContain("Claude Shannon was born on April 30, 1916, in Petoskey, Michigan[1]");
    expect(result).toContain(`[1] Claude Shannon - Wikipedia\\n    ${SHANNON}`);
    // The provider's encrypted blocks stay out of the conversation.
    expect(result).not.toContain("encrypted");
    expect(server.violations).toEqual([]);
  });

  it("OpenAI Responses: the side request has only web_search; citations mark the answer where they end", async () => {
    fresh([openaiSearch]);
    const out = await run(searchTool("openai"), { query: "When was Claude Shannon born?" });
    const body = server.requests[0]!.body;
    expect(body.tools).toEqual([{ type: "web_search" }]);
    const report = reportOf(out);
    expect(report.answer).toBe(`${openaiAnswer.slice(0, 40)}[1]${openaiAnswer.slice(40)}`);
    expect(report.sources.map((s) => [s.n, s.url, s.cited])).toEqual([
      [1, SHANNON, true],
      [2, "https://www.britannica.com/shannon", false],
    ]);
    expect(report.queries).toEqual(["claude shannon birth date"]);
    expect(out.output).toContain("[2] https://www.britannica.com/shannon");
    expect(server.violations).toEqual([]);
  });

  it("Gemini: the side request has only googleSearch (no function declarations beside it)", async () => {
    fresh([geminiSearch]);
    const out = await run(searchTool("gemini"), { query: "Who won Euro 2024?" });
    const body = server.requests[0]!.body;
    expect(body.tools).toEqual([{ googleSearch: {} }]);
    const report = reportOf(out);
    expect(report.answer).toBe(
      "Spain won Euro 2024, defeating England 2-1 in the final.[1][2] It was their fourth title.",
    );
    expect(report.sources.map((s) => s.title)).toEqual(["aljazeera.com", "uefa.com"]);
    expect(server.violations).toEqual([]);
  });

  it("Anthropic: a paused search turn is sent back as it is, and the search goes on", async () => {
    const searchBlocks = webSearchStreamEvents.slice(0, 10);
    const paused = frames([...searchBlocks, messageDelta("pause_turn"), { type: "message_stop" }]);
    // The rest of the answer, its blocks numbered from 0 in the new response.
    const rest = webSearchStreamEvents.slice(10, 18).map((e) => ({ ...e, index: Number(e.index) - 3 }));
    const resumed = frames([
      messageStart({ input_tokens: 60 }, "msg_2"),
      ...rest,
      messageDelta("end_turn"),
      { type: "message_stop" },
    ]);
    fresh([
      { kind: "sse", chunking: WHOLE, frames: paused },
      { kind: "sse", chunking: WHOLE, frames: resumed },
    ]);
    const used: number[] = [];
    const tool = createWebSearchTool({
      search: modelWebSearcher(clientFor("anthropic"), {
        model: MODELS.anthropic,
        provider: "anthropic",
        onUsage: (u) => used.push(u.inputTokens),
      }),
    });
    const report = reportOf(await run(tool, { query: "When was Claude Shannon born?" }));
    expect(server.requests).toHaveLength(2);
    const again = server.requests[1]!.body.messages;
    expect(again.at(-1)).toMatchObject({ role: "assistant" });
    expect(JSON.stringify(again.at(-1))).toContain("server_tool_use");
    expect(report.answer).toContain("Petoskey, Michigan[1]");
    expect(report.sources.map((s) => s.url)).toEqual([SHANNON]);
    expect(used).toEqual([6039, 60]);
    expect(server.violations).toEqual([]);
  });

  it("domain filters go to the provider where it applies them", async () => {
    fresh(() => ({ kind: "sse", chunking: WHOLE, frames: frames(webSearchStreamEvents) }));
    await run(searchTool("anthropic"), { query: "claude shannon", allowed_domains: ["wikipedia.org"] });
    await run(searchTool("anthropic"), { query: "claude shannon", blocked_domains: ["example.com"] });
    const [allowed, blocked] = server.requests.map((r) => r.body.tools[0]);
    expect(allowed).toMatchObject({ allowed_domains: ["wikipedia.org"] });
    expect(allowed.blocked_domains).toBeUndefined();
    expect(blocked).toMatchObject({ blocked_domains: ["example.com"] });
    expect(server.violations).toEqual([]);
  });

  it("a filter the provider cannot apply filters the results and leaves the answer out", async () => {
    fresh([openaiSearch]);
    const out = await run(searchTool("openai"), {
      query: "claude shannon",
      blocked_domains: ["wikipedia.org"],
    });
    expect(server.requests[0]!.body.tools).toEqual([{ type: "web_search" }]);
    const report = reportOf(out);
    expect(report.answer).toBeUndefined();
    expect(report.sources.map((s) => s.url)).toEqual(["https://www.britannica.com/shannon"]);
    expect(out.output).toMatch(/cannot restrict domains as asked/);
    expect(out.output).not.toContain(SHANNON);

    // Gemini names each grounded page's site in its title: filtered by that, not by the redirect host.
    fresh([geminiSearch]);
    const only = reportOf(await run(searchTool("gemini"), { query: "euro", allowed_domains: ["uefa.com"] }));
    expect(only.sources.map((s) => s.title)).toEqual(["uefa.com"]);
    expect(server.violations).toEqual([]);
  });

  it("an answer without a search, a failed request and a bad domain are errors, not results", async () => {
    fresh([
      {
        kind: "sse",
        chunking: WHOLE,
        frames: streamFrames(
          responseObject("resp_x", [citedMessageItem("msg_x", "From memory: 1916.", [])], usage(10, 5)),
        ),
      },
      { kind: "json", status: 400, body: { error: { type: "invalid_request_error", message: "nope" } } },
    ]);
    const noSearch = await run(searchTool("openai"), { query: "claude shannon" });
    expect(noSearch).toMatchObject({ isError: true, errorCode: "search_failed" });
    expect(noSearch.output).toMatch(/without searching/);
    const failed = await run(searchTool("openai"), { query: "claude shannon" });
    expect(failed).toMatchObject({ isError: true, errorCode: "search_failed" });
    expect(failed.output).toMatch(/request to openai failed/);
    const bad = await run(searchTool("openai"), { query: "x y", allowed_domains: ["not a domain"] });
    expect(bad).toMatchObject({ isError: true, errorCode: "invalid_argument" });
    expect(server.requests).toHaveLength(2);
  });
});

describe("web_search through SearXNG", () => {
  const results = [
    { url: SHANNON, title: "Claude Shannon - Wikipedia", content: "American mathematician,\n born 1916." },
    { url: "https://spam.example.com/shannon", title: "Spam", content: "buy" },
    { url: SHANNON, title: "duplicate" },
    { url: "javascript:alert(1)", title: "not a page" },
  ];

  it("lists the instance's results with snippets, deduplicated and filtered by domain", async () => {
    let asked: URL | undefined;
    searxReply = (url) => {
      asked = url;
      return { status: 200, body: JSON.stringify({ query: url.searchParams.get("q"), results }) };
    };
    const tool = createWebSearchTool({ search: searxngWebSearcher({ url: `${searxUrl}/` }) });
    const out = await run(tool, { query: "claude shannon", blocked_domains: ["example.com"] });
    expect(asked?.pathname).toBe("/search");
    expect(asked?.searchParams.get("format")).toBe("json");
    expect(asked?.searchParams.get("q")).toBe("claude shannon");
    const report = reportOf(out);
    expect(report.backend).toBe("searxng");
    expect(report.sources).toEqual([
      expect.objectContaining({ n: 1, url: SHANNON, title: "Claude Shannon - Wikipedia", cited: false }),
    ]);
    expect(out.output).toContain(
      `[1] Claude Shannon - Wikipedia\n    ${SHANNON}\n    American mathematician, born 1916.`,
    );
  });

  it("an instance that refuses JSON or answers something else is a clear error", async () => {
    const tool = createWebSearchTool({ search: searxngWebSearcher({ url: searxUrl }) });
    searxReply = () => ({ status: 403, body: "Forbidden" });
    const refused = await run(tool, { query: "claude shannon" });
    expect(refused).toMatchObject({ isError: true, errorCode: "search_failed" });
    expect(refused.output).toMatch(/HTTP 403.*JSON format/);
    searxReply = () => ({ status: 200, body: '{"answer":"no results key"}' });
    const odd = await run(tool, { query: "claude shannon" });
    expect(odd.output).toMatch(/did not answer with SearXNG's JSON results/);
  });
});
