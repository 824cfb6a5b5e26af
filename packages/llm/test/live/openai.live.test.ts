import { describe, expect, it } from "vitest";
import { OpenAIAdapter } from "../../src/providers/openai/index.js";
import { StreamAccumulator } from "../../src/stream/accumulator.js";
import { responseText, responseToolCalls, userMessage } from "../../src/types/index.js";

const model = process.env.OPENAI_LIVE_MODEL ?? "gpt-5-mini";

describe.skipIf(!process.env.OPENAI_API_KEY)("OpenAI Responses API (live)", () => {
  const adapter = new OpenAIAdapter();

  it("answers a short prompt", async () => {
    const res = await adapter.complete({
      model,
      messages: [userMessage("Reply with the single word: pong")],
      reasoningEffort: "low",
    });
    expect(responseText(res).toLowerCase()).toContain("pong");
    expect(res.usage.inputTokens).toBeGreaterThan(0);
  }, 60_000);

  it("streams a tool call", async () => {
    const acc = new StreamAccumulator("openai");
    for await (const event of adapter.stream({
      model,
      messages: [userMessage("What is the weather in Paris? Use the tool.")],
      tools: [
        {
          name: "get_weather",
          description: "Current weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
      toolChoice: { mode: "required" },
      reasoningEffort: "low",
    })) {
      acc.process(event);
    }
    const [call] = responseToolCalls(acc.response());
    expect(call?.name).toBe("get_weather");
    expect(String(call?.arguments.city)).toMatch(/paris/i);
  }, 60_000);
});
