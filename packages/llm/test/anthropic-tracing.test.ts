import { type Span, type SpanContext, type Tracer, type TracerProvider, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AnthropicAdapter } from "../src/providers/anthropic/index.js";
import { frames, startWireServer, textStreamEvents, type WireServer } from "../src/testing/index.js";
import { userMessage } from "../src/types/index.js";

// The adapter turns the SDK's OpenTelemetry tracing off only where nothing could record it (no
// OpenTelemetry API registered); a host that registers a tracer provider before the first request
// still gets the SDK's span of each call.

/** A span that records: what a tracer provider of a host that traces its calls gives out. */
function recordingSpan(name: string, ended: string[]): Span {
  const context: SpanContext = {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: "b7ad6b7169203331",
    traceFlags: 1,
  };
  const span: Span = new Proxy({} as Span, {
    get: (_target, key) => {
      if (key === "isRecording") return () => true;
      if (key === "spanContext") return () => context;
      if (key === "end") return () => void ended.push(name);
      return () => span;
    },
  });
  return span;
}

let server: WireServer;
const started: string[] = [];
const ended: string[] = [];
beforeAll(async () => {
  server = await startWireServer([]);
  const tracer = {
    startSpan: (name: string) => {
      started.push(name);
      return recordingSpan(name, ended);
    },
  } as unknown as Tracer;
  const provider: TracerProvider = { getTracer: () => tracer };
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  await server.close();
});

it("a streamed call is traced by the SDK when the host registered a tracer provider", async () => {
  server.setHandler([{ kind: "sse", frames: frames(textStreamEvents) }]);
  const adapter = new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: server.url });
  let text = "";
  for await (const event of adapter.stream({ model: "claude-haiku-4-5", messages: [userMessage("Hello")] }))
    if (event.type === "text_delta") text += event.delta;
  await adapter.close();
  expect(text.length).toBeGreaterThan(0);
  expect(started.length).toBe(1);
  expect(ended).toEqual(started);
});
