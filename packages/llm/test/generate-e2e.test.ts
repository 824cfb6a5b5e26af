import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Client } from "../src/client.js";
import { generate, stream, tool } from "../src/generate.js";
import {
  type RecordedRequest,
  type Reply,
  sse,
  startWireServer,
  type WireServer,
} from "../src/testing/index.js";

// generate() and stream() with a two-call tool loop through the real OpenAI-compatible adapter,
// against a local server speaking Chat Completions (JSON and SSE).

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer([]);
});
afterEach(async () => {
  await server.close();
});

const weather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
  execute: async ({ city }: { city: string }) => ({
    city,
    forecast: city === "San Francisco" ? "fog" : "sun",
  }),
});

const toolCalls = [
  {
    id: "call_sf",
    type: "function",
    function: { name: "get_weather", arguments: '{"city":"San Francisco"}' },
  },
  { id: "call_ny", type: "function", function: { name: "get_weather", arguments: '{"city":"New York"}' } },
];

const completion = (message: Record<string, unknown>, finish: string, usage: [number, number]) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "local-model",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
  usage: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] },
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-2",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "local-model",
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const usageChunk = (prompt: number, completionTokens: number) => ({
  id: "chatcmpl-2",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "local-model",
  choices: [],
  usage: {
    prompt_tokens: prompt,
    completion_tokens: completionTokens,
    total_tokens: prompt + completionTokens,
  },
});

const hasToolResults = (req: RecordedRequest) =>
  (req.body.messages as { role: string }[]).some((m) => m.role === "tool");

function expectContinuation(req: RecordedRequest): void {
  const messages = req.body.messages as { role: string; tool_call_id?: string; content?: unknown }[];
  expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
  expect(messages.slice(3).map((m) => m.tool_call_id)).toEqual(["call_sf", "call_ny"]);
  expect(String(messages[3]?.content)).toContain("fog");
  expect(String(messages[4]?.content)).toContain("sun");
}

describe("tool loop end to end over Chat Completions", () => {
  it("generate() runs both tools and sends the results in one continuation", async () => {
    server.setHandler((req): Reply => {
      if (!hasToolResults(req)) {
        return {
          kind: "json",
          body: completion({ content: null, tool_calls: toolCalls }, "tool_calls", [50, 20]),
        };
      }
      return {
        kind: "json",
        body: completion({ content: "Foggy in San Francisco, sunny in New York." }, "stop", [90, 12]),
      };
    });
    const client = Client.fromEnv({ OPENAI_COMPATIBLE_BASE_URL: `${server.url}/v1` });
    const result = await generate({
      client,
      model: "local-model",
      system: "Answer briefly.",
      prompt: "Weather in San Francisco and New York?",
      tools: [weather],
      maxToolRounds: 3,
    });

    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(
      server.requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name),
    ).toEqual(["get_weather"]);
    expectContinuation(server.requests[1]!);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.toolResults.map((r) => r.content)).toEqual([
      { city: "San Francisco", forecast: "fog" },
      { city: "New York", forecast: "sun" },
    ]);
    expect(result.text).toBe("Foggy in San Francisco, sunny in New York.");
    expect(result.finishReason.reason).toBe("stop");
    expect(result.totalUsage).toMatchObject({ inputTokens: 140, outputTokens: 32, totalTokens: 172 });
  });

  it("stream() does the same over SSE, with a step_finish between the steps", async () => {
    server.setHandler((req): Reply => {
      if (!hasToolResults(req)) {
        return {
          kind: "sse",
          frames: [
            sse(chunk({ role: "assistant", content: null })),
            ...toolCalls.map((c, index) =>
              sse(
                chunk({
                  tool_calls: [
                    { index, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } },
                  ],
                }),
              ),
            ),
            ...toolCalls.map((c, index) =>
              sse(chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] })),
            ),
            sse(chunk({}, "tool_calls")),
            sse(usageChunk(50, 20)),
            sse("[DONE]"),
          ],
        };
      }
      return {
        kind: "sse",
        frames: [
          sse(chunk({ role: "assistant", content: "Foggy in SF, " })),
          sse(chunk({ content: "sunny in NY." })),
          sse(chunk({}, "stop")),
          sse(usageChunk(90, 12)),
          sse("[DONE]"),
        ],
      };
    });
    const client = Client.fromEnv({ OPENAI_COMPATIBLE_BASE_URL: `${server.url}/v1` });
    const result = stream({
      client,
      model: "local-model",
      system: "Answer briefly.",
      prompt: "Weather in San Francisco and New York?",
      tools: [weather],
    });
    const types: string[] = [];
    let text = "";
    for await (const event of result) {
      types.push(event.type);
      if (event.type === "text_delta") text += event.delta;
    }
    expect(types.filter((t) => t === "step_finish")).toHaveLength(1);
    expect(types.filter((t) => t === "tool_call_end")).toHaveLength(2);
    expect(types.at(-1)).toBe("finish");
    expectContinuation(server.requests[1]!);
    const final = await result.result();
    expect(text).toBe("Foggy in SF, sunny in NY.");
    expect(final.text).toBe(text);
    expect(final.steps.map((s) => s.toolCalls.length)).toEqual([2, 0]);
  });
});
