import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startWireServer, type WireServer } from "../src/testing/index.js";

// Records when the SDK module is first imported; vitest calls the factory on the first import.
const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock("openai", async (importOriginal) => {
  loads.count++;
  return await importOriginal();
});

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([
    {
      kind: "json",
      body: {
        id: "chatcmpl-lazy",
        object: "chat.completion",
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "loaded" }, finish_reason: "stop" }],
      },
    },
  ]);
});
afterAll(() => server.close());

describe("lazy SDK loading", () => {
  it("imports openai only when the first request is made", async () => {
    const { OpenAIAdapter } = await import("../src/providers/openai/index.js");
    const { OpenAICompatibleAdapter } = await import("../src/providers/openai-compatible/index.js");
    new OpenAIAdapter({ env: {} });
    const compat = new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, env: {} });
    expect(loads.count).toBe(0);
    const res = await compat.complete({
      model: "m",
      messages: [{ role: "user", content: [{ kind: "text", text: "hi" }] }],
    });
    expect(res.message.content).toEqual([{ kind: "text", text: "loaded" }]);
    expect(loads.count).toBe(1);
  });
});
