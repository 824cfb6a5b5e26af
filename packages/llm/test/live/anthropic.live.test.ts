import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "../../src/providers/anthropic/index.js";
import { StreamAccumulator } from "../../src/stream/accumulator.js";
import { responseText, responseToolCalls, userMessage } from "../../src/types/index.js";

const model = process.env.ANTHROPIC_LIVE_MODEL ?? "claude-haiku-4-5";

describe.skipIf(!process.env.ANTHROPIC_API_KEY)("Anthropic Messages API (live)", () => {
  const adapter = new AnthropicAdapter();

  it("answers a short prompt", async () => {
    const res = await adapter.complete({
      model,
      maxTokens: 64,
      messages: [userMessage("Reply with the single word: pong")],
    });
    expect(responseText(res).toLowerCase()).toContain("pong");
    expect(res.usage.inputTokens).toBeGreaterThan(0);
  }, 60_000);

  it("streams a forced tool call", async () => {
    const acc = new StreamAccumulator("anthropic");
    for await (const event of adapter.stream({
      model,
      maxTokens: 256,
      messages: [userMessage("What is the weather in Paris?")],
      tools: [
        {
          name: "get_weather",
          description: "Current weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
      toolChoice: { mode: "named", toolName: "get_weather" },
    })) {
      acc.process(event);
    }
    const [call] = responseToolCalls(acc.response());
    expect(call?.name).toBe("get_weather");
    expect(String(call?.arguments.city)).toMatch(/paris/i);
  }, 60_000);
});
