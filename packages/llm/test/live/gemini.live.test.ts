import { describe, expect, it } from "vitest";
import {
  GeminiAdapter,
  responseText,
  responseToolCalls,
  type StreamEvent,
  userMessage,
} from "../../src/index.js";

const key = process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY;
const model = process.env.GEMINI_LIVE_MODEL ?? "gemini-2.5-flash";

describe.skipIf(!key)("Gemini live", () => {
  const adapter = new GeminiAdapter();

  it("completes a short prompt", async () => {
    const res = await adapter.complete({
      model,
      messages: [userMessage("Reply with the single word: pong")],
      maxTokens: 256,
    });
    expect(responseText(res).toLowerCase()).toContain("pong");
    expect(res.usage.inputTokens).toBeGreaterThan(0);
  }, 60_000);

  it("streams and calls a tool", async () => {
    const events: StreamEvent[] = [];
    for await (const e of adapter.stream({
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
    })) {
      events.push(e);
    }
    const finish = events.at(-1);
    expect(finish?.type).toBe("finish");
    if (finish?.type === "finish") {
      expect(responseToolCalls(finish.response)[0]?.name).toBe("get_weather");
    }
  }, 60_000);
});
