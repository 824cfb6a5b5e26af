// The providers' own web search as a provider tool: each request is checked against the
// provider's published specification by the wire server, results and citations come back as
// content parts (streamed or not), and they go back in the history as each API requires.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AnthropicAdapter,
  GeminiAdapter,
  InvalidRequestError,
  OpenAIAdapter,
  OpenAICompatibleAdapter,
  type ProviderAdapter,
  type Request,
  type Response,
  StreamAccumulator,
  type StreamEvent,
  userMessage,
  type WebSearchPart,
} from "../src/index.js";
import {
  citedMessageItem,
  ENCRYPTED_CONTENT,
  ENCRYPTED_INDEX,
  frames,
  generateContentBody,
  groundingMetadata,
  type Reply,
  responseObject,
  SEARCH_ID,
  sse,
  sseReply,
  startWireServer,
  usage,
  usageMetadata,
  type WireServer,
  webSearchCallItem,
  webSearchMessage,
  webSearchStreamEvents,
} from "../src/testing/index.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

const reply = (...replies: Reply[]) => server.setHandler(replies);
const last = () => server.requests.at(-1)!;
const question = userMessage("When was Claude Shannon born?");

async function streamed(
  adapter: ProviderAdapter,
  request: Request,
): Promise<{ events: StreamEvent[]; response: Response }> {
  const events: StreamEvent[] = [];
  const acc = new StreamAccumulator();
  for await (const e of adapter.stream(request)) {
    events.push(e);
    acc.process(e);
  }
  return { events, response: acc.response() };
}

const searchesOf = (response: Response) =>
  response.message.content.flatMap((p) => (p.kind === "web_search" ? [p.webSearch] : []));
const citationsOf = (response: Response) =>
  response.message.content.flatMap((p) => (p.kind === "text" ? (p.citations ?? []) : []));

describe("Anthropic web_search_20250305", () => {
  const adapter = () => new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: `${server.url}` });
  const request = (extra: Partial<Request> = {}): Request => ({
    model: "claude-sonnet-4-5",
    messages: [question],
    providerTools: [
      {
        kind: "web_search",
        maxUses: 3,
        allowedDomains: ["wikipedia.org"],
        userLocation: {
          city: "San Francisco",
          region: "California",
          country: "US",
          timezone: "America/Los_Angeles",
        },
      },
    ],
    ...extra,
  });

  it("sends the server tool with its options, and reads the search, its results and citations", async () => {
    reply({ kind: "json", body: webSearchMessage });
    const response = await adapter().complete(request());
    expect(last().body.tools).toEqual([
      {
        type: "web_search_20250305",
        name: "web_search",
        max_uses: 3,
        allowed_domains: ["wikipedia.org"],
        user_location: {
          type: "approximate",
          city: "San Francisco",
          region: "California",
          country: "US",
          timezone: "America/Los_Angeles",
        },
        cache_control: { type: "ephemeral" },
      },
    ]);
    const [search] = searchesOf(response);
    expect(search).toMatchObject({
      id: SEARCH_ID,
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
    });
    expect(citationsOf(response)).toEqual([
      expect.objectContaining({
        url: "https://en.wikipedia.org/wiki/Claude_Shannon",
        citedText: expect.stringMatching(/^Claude Elwood Shannon/),
      }),
    ]);
    expect(response.usage.webSearches).toBe(1);
    expect(response.message.content.map((p) => p.kind)).toEqual(["text", "web_search", "text", "text"]);
  });

  it("streams to the same response as complete() gives", async () => {
    reply({ kind: "json", body: webSearchMessage }, { kind: "sse", frames: frames(webSearchStreamEvents) });
    const whole = await adapter().complete(request());
    const { events, response } = await streamed(adapter(), request());
    expect(
      events.filter((e) => e.type === "web_search").map((e) => e.type === "web_search" && e.webSearch.status),
    ).toEqual(["in_progress", "completed"]);
    expect(response.message).toEqual(whole.message);
    expect(response.usage.webSearches).toBe(1);
  });

  it("sends the search and the cited text back exactly as they came, encrypted content included", async () => {
    reply({ kind: "sse", frames: frames(webSearchStreamEvents) });
    const { response } = await streamed(adapter(), request());
    reply({ kind: "json", body: webSearchMessage });
    await adapter().complete(request({ messages: [question, response.message, userMessage("And where?")] }));
    const assistant = last().body.messages[1];
    expect(assistant.role).toBe("assistant");
    expect(assistant.content).toEqual(webSearchMessage.content as unknown[]);
    expect(JSON.stringify(assistant)).toContain(ENCRYPTED_CONTENT);
    expect(JSON.stringify(assistant)).toContain(ENCRYPTED_INDEX);
    expect(server.violations).toEqual([]);
  });

  it("reports a failed search with the provider's error code", async () => {
    const failed = {
      ...webSearchMessage,
      content: [
        { type: "server_tool_use", id: SEARCH_ID, name: "web_search", input: { query: "x" } },
        {
          type: "web_search_tool_result",
          tool_use_id: SEARCH_ID,
          content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
        },
        { type: "text", text: "I could not search further." },
      ],
    };
    reply({ kind: "json", body: failed });
    const response = await adapter().complete(request());
    expect(searchesOf(response)[0]).toMatchObject({
      status: "failed",
      error: "max_uses_exceeded",
      results: [],
    });
    // A failed search goes back too: the model's history must hold the call it made.
    reply({ kind: "json", body: webSearchMessage });
    await adapter().complete(request({ messages: [question, response.message, userMessage("ok")] }));
    expect(last().body.messages[1].content.slice(0, 2)).toEqual(failed.content.slice(0, 2));
  });

  it("names an option it cannot honour", async () => {
    reply({ kind: "json", body: webSearchMessage });
    const response = await adapter().complete(
      request({ providerTools: [{ kind: "web_search", searchContextSize: "high" }] }),
    );
    expect(response.warnings.map((w) => w.code)).toContain("ignored_option");
  });
});

describe("OpenAI Responses web_search", () => {
  const adapter = () => new OpenAIAdapter({ apiKey: "sk-test", baseUrl: `${server.url}/v1` });
  const answer = "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan.";
  const wire = responseObject(
    "resp_ws",
    [
      webSearchCallItem("ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609", "claude shannon birth date", [
        "https://en.wikipedia.org/wiki/Claude_Shannon",
        "https://www.britannica.com/biography/Claude-Shannon",
      ]),
      citedMessageItem("msg_67c9fa077e288190af08fdffda2e34f20be649c1a5ff9609", answer, [
        {
          url: "https://en.wikipedia.org/wiki/Claude_Shannon",
          title: "Claude Shannon - Wikipedia",
          start: 0,
          end: answer.length,
        },
      ]),
    ],
    usage(320, 48),
  );
  const request = (extra: Partial<Request> = {}): Request => ({
    model: "gpt-5.2",
    messages: [question],
    providerTools: [
      {
        kind: "web_search",
        searchContextSize: "low",
        allowedDomains: ["wikipedia.org", "britannica.com"],
        userLocation: { country: "GB", city: "London" },
      },
    ],
    ...extra,
  });

  it("sends the web_search tool with its options and asks for the sources", async () => {
    reply({ kind: "json", body: wire });
    const response = await adapter().complete(request());
    expect(last().body.tools).toEqual([
      {
        type: "web_search",
        search_context_size: "low",
        user_location: { type: "approximate", country: "GB", city: "London" },
        filters: { allowed_domains: ["wikipedia.org", "britannica.com"] },
      },
    ]);
    expect(last().body.include).toContain("web_search_call.action.sources");
    expect(searchesOf(response)).toEqual([
      expect.objectContaining({
        provider: "openai",
        queries: ["claude shannon birth date"],
        results: [
          { url: "https://en.wikipedia.org/wiki/Claude_Shannon" },
          { url: "https://www.britannica.com/biography/Claude-Shannon" },
        ],
        status: "completed",
      }),
    ]);
    expect(citationsOf(response)).toEqual([
      expect.objectContaining({
        url: "https://en.wikipedia.org/wiki/Claude_Shannon",
        title: "Claude Shannon - Wikipedia",
        startIndex: 0,
        endIndex: answer.length,
      }),
    ]);
    expect(response.usage.webSearches).toBe(1);
  });

  it("streams to the same response, and replays the search call and the cited message", async () => {
    reply({ kind: "json", body: wire }, sseReply(wire));
    const whole = await adapter().complete(request());
    const { response } = await streamed(adapter(), request());
    expect(response.message).toEqual(whole.message);
    reply({ kind: "json", body: wire });
    await adapter().complete(request({ messages: [question, response.message, userMessage("Where?")] }));
    const input = last().body.input as Record<string, unknown>[];
    expect(input[1]).toEqual((wire.output as unknown[])[0]);
    expect(input[2]).toMatchObject({
      type: "message",
      id: "msg_67c9fa077e288190af08fdffda2e34f20be649c1a5ff9609",
      content: [
        {
          type: "output_text",
          text: answer,
          annotations: [
            {
              type: "url_citation",
              start_index: 0,
              end_index: answer.length,
              url: "https://en.wikipedia.org/wiki/Claude_Shannon",
              title: "Claude Shannon - Wikipedia",
            },
          ],
        },
      ],
    });
    expect(server.violations).toEqual([]);
  });

  it("refuses blocked domains, which the tool cannot honour, rather than search them", async () => {
    await expect(
      adapter().complete(
        request({ providerTools: [{ kind: "web_search", blockedDomains: ["example.com"] }] }),
      ),
    ).rejects.toThrow(InvalidRequestError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("Gemini Google Search grounding", () => {
  const adapter = () => new GeminiAdapter({ apiKey: "test-key", baseUrl: server.url, env: {} });
  const answer =
    "Spain won Euro 2024, defeating England 2-1 in the final. This victory marks Spain's record fourth title.";
  const plain = generateContentBody([{ text: answer }], usageMetadata(12, 40));
  const candidate = {
    ...(plain.candidates as Record<string, unknown>[])[0],
    groundingMetadata: groundingMetadata(answer),
  };
  const body = { ...plain, candidates: [candidate] };
  const request = (extra: Partial<Request> = {}): Request => ({
    model: "gemini-2.5-flash",
    messages: [userMessage("Who won the euro 2024?")],
    providerTools: [{ kind: "web_search" }],
    ...extra,
  });

  it("sends googleSearch and reads the grounding as a search with citations", async () => {
    reply({ kind: "json", body });
    const response = await adapter().complete(request());
    expect(last().body.tools).toEqual([{ googleSearch: {} }]);
    expect(searchesOf(response)).toEqual([
      expect.objectContaining({
        provider: "gemini",
        queries: ["euro 2024 winner"],
        results: [
          { url: expect.stringContaining("aljazeera"), title: "aljazeera.com" },
          { url: expect.stringContaining("uefa"), title: "uefa.com" },
        ],
      }),
    ]);
    expect(citationsOf(response).map((c) => [c.title, c.citedText])).toEqual([
      ["aljazeera.com", "Spain won Euro 2024, defeating England 2-1 in the final."],
      ["uefa.com", "Spain won Euro 2024, defeating England 2-1 in the final."],
    ]);
  });

  it("reads grounding from the last chunk of a stream, and sends no grounding back", async () => {
    const first = {
      ...body,
      candidates: [{ content: { role: "model", parts: [{ text: answer.slice(0, 30) }] }, index: 0 }],
    };
    const rest = {
      ...body,
      candidates: [
        { ...body.candidates[0], content: { role: "model", parts: [{ text: answer.slice(30) }] } },
      ],
    };
    reply({ kind: "sse", frames: [sse(first), sse(rest)] });
    const { response } = await streamed(adapter(), request());
    expect(searchesOf(response)).toHaveLength(1);
    expect(citationsOf(response)).toHaveLength(2);
    reply({ kind: "json", body });
    await adapter().complete(
      request({ messages: [...request().messages, response.message, userMessage("And?")] }),
    );
    expect(last().body.contents[1]).toEqual({ role: "model", parts: [{ text: answer }] });
    expect(server.violations).toEqual([]);
  });

  it("refuses domain restrictions and names the options it ignores", async () => {
    await expect(
      adapter().complete(request({ providerTools: [{ kind: "web_search", allowedDomains: ["uefa.com"] }] })),
    ).rejects.toThrow(InvalidRequestError);
    reply({ kind: "json", body });
    const response = await adapter().complete(
      request({ providerTools: [{ kind: "web_search", maxUses: 2 }] }),
    );
    expect(response.warnings).toEqual([
      expect.objectContaining({ code: "ignored_option", message: expect.stringMatching(/maxUses/) }),
    ]);
  });
});

describe("other providers", () => {
  it("an OpenAI-compatible server has no web search: the request is refused, never answered without it", async () => {
    const adapter = new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, apiKey: "x" });
    await expect(
      adapter.complete({ model: "qwen3:8b", messages: [question], providerTools: [{ kind: "web_search" }] }),
    ).rejects.toThrow(/no provider tools \(web_search\)/);
    expect(server.requests).toHaveLength(0);
  });

  it("another provider's search is dropped from the history while its answer text stays", async () => {
    reply({ kind: "json", body: webSearchMessage });
    const anthropic = new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: server.url });
    const searched = await anthropic.complete({ model: "claude-sonnet-4-5", messages: [question] });
    expect(searched.message.content.some((p): p is WebSearchPart => p.kind === "web_search")).toBe(true);
    const openai = new OpenAIAdapter({ apiKey: "sk-test", baseUrl: `${server.url}/v1` });
    reply({ kind: "json", body: responseObject("resp_2", [], usage(1, 1)) });
    await openai.complete({
      model: "gpt-5.2",
      messages: [question, searched.message, userMessage("Where?")],
    });
    const input = last().body.input as Record<string, unknown>[];
    expect(input.map((i) => i.type)).toEqual(["message", "message", "message"]);
    expect(JSON.stringify(input)).not.toContain(ENCRYPTED_CONTENT);
    expect(JSON.stringify(input[1])).toContain("Petoskey");
    expect(server.violations).toEqual([]);
  });
});
