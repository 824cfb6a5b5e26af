// web_search through the built command: each search is a tool call the permission rules judge;
// an allowed one is a side request (checked against the provider's specification by the scripted
// model's wire server) carrying only the provider's search tool, and the citations reach
// stream-json in the user line's tool_use_result. Without a provider search, SearXNG from settings.
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  citedMessageItem,
  frames,
  groundingMetadata,
  type Reply,
  responseObject,
  sse,
  streamFrames,
  usage,
  webSearchCallItem,
  webSearchStreamEvents,
} from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModel } from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";

const fx = headlessFixture();
type Json = Record<string, unknown>;
const SHANNON = "https://en.wikipedia.org/wiki/Claude_Shannon";

const OPENAI_ANSWER = "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan.";
const GEMINI_ANSWER = "Spain won Euro 2024, defeating England 2-1 in the final. It was their fourth title.";

/** What each provider's search answers in the side request, as its documentation shows it. */
const SEARCH_REPLY: Readonly<Record<"anthropic" | "openai" | "gemini", Reply>> = {
  anthropic: { kind: "sse", chunking: { mode: "whole" }, frames: frames(webSearchStreamEvents) },
  openai: {
    kind: "sse",
    chunking: { mode: "whole" },
    frames: streamFrames(
      responseObject(
        "resp_search",
        [
          webSearchCallItem("ws_1", "claude shannon birth date", [SHANNON]),
          citedMessageItem("msg_search", OPENAI_ANSWER, [
            { url: SHANNON, title: "Claude Shannon - Wikipedia", start: 0, end: 40 },
          ]),
        ],
        usage(100, 20),
      ),
    ),
  },
  gemini: {
    kind: "sse",
    chunking: { mode: "whole" },
    frames: [
      sse({
        candidates: [
          {
            content: { role: "model", parts: [{ text: GEMINI_ANSWER }] },
            finishReason: "STOP",
            index: 0,
            groundingMetadata: groundingMetadata(GEMINI_ANSWER),
          },
        ],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 40, totalTokenCount: 52 },
        modelVersion: "gemini-3.1-pro-preview",
        responseId: "resp-search",
      }),
    ],
  },
};

/** The first source each provider's search reports, and what the answer cites from it. */
const FIRST_SOURCE: Readonly<Record<"anthropic" | "openai" | "gemini", { title: string; url: RegExp }>> = {
  anthropic: {
    title: "Claude Shannon - Wikipedia",
    url: /^https:\/\/en\.wikipedia\.org\/wiki\/Claude_Shannon$/,
  },
  openai: {
    title: "Claude Shannon - Wikipedia",
    url: /^https:\/\/en\.wikipedia\.org\/wiki\/Claude_Shannon$/,
  },
  gemini: { title: "aljazeera.com", url: /grounding-api-redirect\/aljazeera$/ },
};

const lines = (stdout: string): Json[] =>
  stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Json);

/** The side request's tools: only the provider's own search, in its wire form. */
const SIDE_TOOLS: Readonly<Record<"anthropic" | "openai" | "gemini", unknown>> = {
  anthropic: [expect.objectContaining({ type: "web_search_20250305", name: "web_search" })],
  openai: [{ type: "web_search" }],
  gemini: [{ googleSearch: {} }],
};

let searx: Server;
let searxUrl: string;
let searxQueries: string[] = [];
beforeAll(async () => {
  searx = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    searxQueries.push(url.searchParams.get("q") ?? "");
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        query: url.searchParams.get("q"),
        results: [
          {
            url: "https://nodejs.org/en/about/previous-releases",
            title: "Node.js Releases",
            content: "Major Node.js versions enter Current release status for six months.",
          },
          {
            url: "https://github.com/nodejs/release",
            title: "nodejs/release",
            content: "Node.js Release Working Group",
          },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => searx.listen(0, "127.0.0.1", resolve));
  searxUrl = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => searx.close(() => resolve())));

const userSettings = async (settings: Json) => {
  const home = join(fx.root, "attractor");
  await mkdir(home, { recursive: true });
  await writeFile(join(home, "settings.json"), JSON.stringify(settings));
};

describe("web_search in a headless run, with stream-json", () => {
  for (const provider of ["anthropic", "openai", "gemini"] as const) {
    it(`${provider}: a side request with only the provider's search; the citations in tool_use_result`, async () => {
      fx.model = await startScriptedModel(provider, [
        { calls: [{ name: "web_search", args: { query: "When was Claude Shannon born?" } }] },
        { raw: SEARCH_REPLY[provider] },
        {
          expect: (r) => (r.at(-1)?.includes("[1] ") ? undefined : `search gave ${r.at(-1)}`),
          text: "Found it [1].",
        },
      ]);
      const result = await fx.run([
        "-p",
        "When was Claude Shannon born?",
        "--output-format",
        "stream-json",
        ...fx.model.flags(),
      ]);
      expect(result.stderr).not.toContain("UNEXPECTED");
      expect(result.code, result.stderr).toBe(0);

      const seen = fx.model.seen();
      expect(seen).toHaveLength(3);
      // The conversation offers web_search as a function; the side request carries only the
      // provider's search tool and the query, none of the conversation's tools or messages.
      expect(seen[0]!.tools).toContain("web_search");
      expect(seen[1]!.body.tools).toEqual(SIDE_TOOLS[provider]);
      expect(seen[1]!.userTexts).toEqual(["Search the web for: When was Claude Shannon born?"]);
      expect(seen[1]!.toolResults).toEqual([]);
      expect(fx.model.server.violations).toEqual([]);

      const out = lines(result.stdout);
      expect(out[0]).toMatchObject({ type: "system", subtype: "init" });
      expect((out[0]!.tools as string[]).includes("web_search")).toBe(true);
      const call = out.find((l) => l.type === "assistant" && JSON.stringify(l).includes('"tool_use"'));
      expect(call).toMatchObject({
        message: {
          content: [
            { type: "tool_use", name: "web_search", input: { query: "When was Claude Shannon born?" } },
          ],
        },
      });
      const user = out.find((l) => l.type === "user") as Json & { tool_use_result: Json };
      const first = FIRST_SOURCE[provider];
      expect(user.tool_use_result).toMatchObject({
        query: "When was Claude Shannon born?",
        backend: provider,
        total_results: expect.any(Number),
        answer: expect.stringContaining("[1]"),
      });
      expect((user.tool_use_result.results as Json[])[0]).toMatchObject({
        title: first.title,
        url: expect.stringMatching(first.url),
        metadata: { n: 1, cited: true, cited_text: [expect.any(String)] },
      });
      const content = (user.message as { content: { content: string; is_error: boolean }[] }).content[0]!;
      expect(content.is_error).toBe(false);
      expect(content.content).toMatch(new RegExp(`\\[1\\] ${first.title}\\n {4}https://`));
      expect(out.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Found it [1]." });
      // The side request's tokens count in the run's usage (the scripted replies use 120 each).
      if (provider === "anthropic")
        expect((out.at(-1)!.usage as { input_tokens: number }).input_tokens).toBe(120 * 2 + 6039);
    });
  }

  it("a deny rule refuses the search with the rule named, and no side request is made", async () => {
    await userSettings({ permissions: { deny: ["WebSearch"] } });
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "web_search", args: { query: "node 24 release date" } }] },
      {
        expect: (r) => (r.at(-1)?.includes('"WebSearch"') ? undefined : `got ${r.at(-1)}`),
        text: "Refused.",
      },
    ]);
    const result = await fx.run(["-p", "search it", "--output-format", "stream-json", "--mode", "yolo"]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    expect(fx.model.seen()).toHaveLength(2);
    const user = lines(result.stdout).find((l) => l.type === "user") as Json;
    expect(user.tool_use_result).toBeUndefined();
    expect(JSON.stringify(user.message)).toMatch(/Permission denied: the settings rule \\"WebSearch\\"/);
  });

  it("an ask rule asks, and headless that is a refusal saying why", async () => {
    await userSettings({ permissions: { ask: ["web_search"] } });
    fx.model = await startScriptedModel("openai", [
      { calls: [{ name: "web_search", args: { query: "node 24 release date" } }] },
      { expect: (r) => (r.at(-1)?.includes("asks first") ? undefined : `got ${r.at(-1)}`), text: "Refused." },
    ]);
    const result = await fx.run(["-p", "search it", "--output-format", "json"]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    expect(fx.model.seen()).toHaveLength(2);
  });
});

describe("web_search without a provider search", () => {
  it("an OpenAI-compatible server: not offered, and one warning says how to get it", async () => {
    fx.model = await startScriptedModel("openai-compatible", [{ text: "No search." }]);
    const result = await fx.run(["-p", "search the web", ...fx.model.flags()]);
    expect(result.code, result.stderr).toBe(0);
    expect(fx.model.seen()[0]!.tools).not.toContain("web_search");
    const warnings = result.stderr.split("\n").filter((l) => l.includes("web_search"));
    expect(warnings).toEqual([
      "warning: web_search is not offered: the openai-compatible provider runs no web search of its own. Set webSearch.searxngUrl in settings to search through a SearXNG instance.",
    ]);
  });

  it("with webSearch.searxngUrl it searches through SearXNG, the results in stream-json", async () => {
    await userSettings({ webSearch: { searxngUrl: searxUrl } });
    searxQueries = [];
    fx.model = await startScriptedModel("openai-compatible", [
      {
        calls: [
          { name: "web_search", args: { query: "node release schedule", blocked_domains: ["github.com"] } },
        ],
      },
      {
        expect: (r) => (r.at(-1)?.includes("Node.js Releases") ? undefined : `got ${r.at(-1)}`),
        text: "Six months.",
      },
    ]);
    const result = await fx.run([
      "-p",
      "search the web",
      "--output-format",
      "stream-json",
      ...fx.model.flags(),
    ]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("web_search is not offered");
    expect(searxQueries).toEqual(["node release schedule"]);
    const user = lines(result.stdout).find((l) => l.type === "user") as Json;
    expect(user.tool_use_result).toEqual({
      query: "node release schedule",
      backend: "searxng",
      total_results: 1,
      results: [
        {
          title: "Node.js Releases",
          url: "https://nodejs.org/en/about/previous-releases",
          snippet: "Major Node.js versions enter Current release status for six months.",
          metadata: { n: 1, cited: false },
        },
      ],
    });
  });
});
