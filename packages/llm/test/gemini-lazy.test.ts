import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GeminiAdapter, responseText, userMessage } from "../src/index.js";
import { startWireServer, type WireServer } from "../src/testing/index.js";

const sdk = vi.hoisted(() => ({ loads: 0 }));

vi.mock("@google/genai", async (importOriginal) => {
  sdk.loads++;
  return await importOriginal();
});

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(async () => {
  await server.close();
});

describe("GeminiAdapter SDK loading", () => {
  it("does not load @google/genai until the first request, and loads it once", async () => {
    const adapter = new GeminiAdapter({ apiKey: "k", baseUrl: server.url, env: {} });
    expect(sdk.loads).toBe(0);
    const reply = {
      kind: "json" as const,
      body: {
        candidates: [{ content: { role: "model", parts: [{ text: "hi" }] }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      },
    };
    server.setHandler([reply, reply]);
    const request = { model: "gemini-2.5-flash", messages: [userMessage("hello")] };
    expect(responseText(await adapter.complete(request))).toBe("hi");
    expect(sdk.loads).toBe(1);
    await adapter.complete(request);
    expect(sdk.loads).toBe(1);
  });
});
