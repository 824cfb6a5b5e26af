import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startWireServer, type WireServer } from "../src/testing/index.js";

// Counts imports of the SDK module; vitest runs the factory on the first import only.
const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock("@anthropic-ai/sdk", async (importOriginal) => {
  loads.count++;
  return await importOriginal();
});

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([
    {
      kind: "json",
      body: {
        id: "msg_lazy",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [{ type: "text", text: "loaded" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    },
  ]);
});
afterAll(() => server.close());

describe("Anthropic SDK loading", () => {
  it("imports @anthropic-ai/sdk only when the first request is made", async () => {
    const { AnthropicAdapter } = await import("../src/providers/anthropic/index.js");
    const adapter = new AnthropicAdapter({ apiKey: "k", baseUrl: server.url });
    new AnthropicAdapter({ env: {} });
    expect(loads.count).toBe(0);
    const res = await adapter.complete({
      model: "claude-test",
      messages: [{ role: "user", content: [{ kind: "text", text: "hi" }] }],
    });
    expect(res.message.content).toEqual([{ kind: "text", text: "loaded" }]);
    expect(loads.count).toBe(1);
  });
});
