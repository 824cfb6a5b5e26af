import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startWireServer, type WireServer } from "../src/testing/index.js";

// Counts the first import of each vendor SDK and of undici, the transport of calls with a connect
// timeout other than the platform fetch's (vitest runs a mock factory on first import only).
const loads = vi.hoisted(() => ({ openai: 0, anthropic: 0, gemini: 0, undici: 0 }));
vi.mock("openai", async (importOriginal) => {
  loads.openai++;
  return await importOriginal();
});
vi.mock("@anthropic-ai/sdk", async (importOriginal) => {
  loads.anthropic++;
  return await importOriginal();
});
vi.mock("@google/genai", async (importOriginal) => {
  loads.gemini++;
  return await importOriginal();
});
vi.mock("undici", async (importOriginal) => {
  loads.undici++;
  return await importOriginal();
});

const onlyMe = {
  kind: "json",
  body: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5",
    content: [{ type: "text", text: "only me" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 2 },
  },
} as const;

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([onlyMe, onlyMe]);
});
afterAll(() => server.close());

describe("SDK loading through the package entry point", () => {
  it("loads no SDK nor undici on import or client construction, then only what a request needs", async () => {
    const llm = await import("../src/index.js");
    const client = llm.Client.fromEnv({
      ANTHROPIC_API_KEY: "sk-ant",
      ANTHROPIC_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-openai",
      GEMINI_API_KEY: "g-key",
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1",
    });
    new llm.OpenAIAdapter({ apiKey: "k" });
    new llm.GeminiAdapter({ apiKey: "k" });
    expect(client.providers).toEqual(["anthropic", "openai", "gemini", "openai-compatible"]);
    expect(loads).toEqual({ openai: 0, anthropic: 0, gemini: 0, undici: 0 });

    const res = await client.complete({ model: "claude-haiku-4-5", messages: [llm.userMessage("hi")] });
    expect(llm.responseText(res)).toBe("only me");
    // Anthropic requests go over node:http: no undici, whatever the connect timeout.
    expect(loads).toEqual({ openai: 0, anthropic: 1, gemini: 0, undici: 0 });

    const bounded = await client.complete({
      model: "claude-haiku-4-5",
      messages: [llm.userMessage("hi")],
      timeout: { connectMs: 2_000 },
    });
    expect(llm.responseText(bounded)).toBe("only me");
    expect(loads).toEqual({ openai: 0, anthropic: 1, gemini: 0, undici: 0 });
    await client.close();
  });
});
