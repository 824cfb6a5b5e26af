import type { SessionEvent } from "@attractor/agent";
import { describe, expect, it } from "vitest";
import { createDeltaBatcher } from "./delta-batcher.js";

const event = (kind: string, data: Record<string, unknown>) =>
  ({ kind, data, timestamp: "2026-01-01T00:00:00.000Z", sessionId: "s" }) as unknown as SessionEvent;
const text = (delta: string, channel = "text") => event("assistant_text_delta", { delta, channel });

describe("the delta batcher", () => {
  it("merges pieces of one stream and delivers them once the frame is over", async () => {
    const delivered: (readonly { kind: string; data?: unknown }[])[] = [];
    const batcher = createDeltaBatcher((events) => delivered.push(events), 20);
    batcher.push(text("Hel"));
    batcher.push(text("lo"));
    batcher.push(text("hmm", "reasoning"));
    batcher.push(text(" there"));
    expect(delivered).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.map((e) => (e.data as { delta: string }).delta)).toEqual(["Hello", "hmm", " there"]);
  });

  it("delivers held pieces before any other event, in arrival order", () => {
    const delivered: string[][] = [];
    const batcher = createDeltaBatcher((events) => delivered.push(events.map((e) => e.kind)), 1000);
    batcher.push(text("a"));
    batcher.push(event("tool_call_output_delta", { callId: "1", toolName: "shell", delta: "x" }));
    batcher.push(event("tool_call_output_delta", { callId: "1", toolName: "shell", delta: "y" }));
    batcher.push(event("assistant_text_end", { text: "a", toolCalls: [] }));
    expect(delivered).toEqual([["assistant_text_delta", "tool_call_output_delta", "assistant_text_end"]]);
    batcher.dispose();
  });
});
