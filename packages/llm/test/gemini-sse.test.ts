import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeminiAdapter, responseText, type StreamEvent, userMessage } from "../src/index.js";
import { sse, sseComment, startWireServer, type WireServer } from "../src/testing/index.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(async () => {
  await server.close();
});

const chunk = (text: string, last = false) => ({
  candidates: [{ content: { role: "model", parts: [{ text }] }, ...(last && { finishReason: "STOP" }) }],
  usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
  responseId: "r1",
});

async function text(): Promise<string> {
  const adapter = new GeminiAdapter({ apiKey: "k", baseUrl: server.url, env: {} });
  const events: StreamEvent[] = [];
  for await (const e of adapter.stream({ model: "gemini-2.5-flash", messages: [userMessage("x")] }))
    events.push(e);
  const last = events.at(-1);
  return last?.type === "finish" ? responseText(last.response) : "";
}

describe("Gemini SSE framing", () => {
  it("tolerates keep-alive comments, CRLF line ends and one-byte TCP pieces", async () => {
    const frames = [sseComment(), sse(chunk("Hel")), sseComment("keep-alive"), sse(chunk("lo", true))];
    server.setHandler([
      { kind: "sse", frames, chunking: { mode: "fixed", size: 1 } },
      { kind: "sse", frames: frames.map((f) => f.replace(/\n/g, "\r\n")) },
    ]);
    expect(await text()).toBe("Hello");
    expect(await text()).toBe("Hello");
  });

  it("joins data split over several data: lines", async () => {
    server.setHandler([
      {
        kind: "sse",
        frames: [sse(chunk("multi "), { multiline: true }), sse(chunk("line", true), { multiline: true })],
      },
    ]);
    expect(await text()).toBe("multi line");
  });
});
