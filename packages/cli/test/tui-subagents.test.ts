import type { SessionEvent } from "@attractor/agent";
import { describe, expect, it } from "vitest";
import { initialTranscript, reduceTranscript, type TranscriptAction } from "../src/tui/transcript/model.js";
import { sessionEvent } from "./tui-support.js";

/** A child's event as the parent forwards it. */
const fromChild = (event: SessionEvent): TranscriptAction => ({
  type: "event",
  event: sessionEvent("subagent_event", {
    agentId: "child-1",
    parentCallId: "call_spawn",
    agentType: "test-runner",
    event,
  }),
});

describe("subagent progress in the transcript", () => {
  it("shows a live line per subagent that follows its tool calls, then one line when it ends", () => {
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const actions: TranscriptAction[] = [
      fromChild(
        sessionEvent("session_start", {
          state: "idle",
          provider: "p",
          model: "m",
          workingDirectory: "/",
          depth: 1,
          restoredTurns: 0,
        }),
      ),
      fromChild(sessionEvent("assistant_text_start", { model: "m" })),
      fromChild(
        sessionEvent("tool_call_start", {
          toolName: "shell",
          callId: "c1",
          arguments: { command: "npm test" },
        }),
      ),
    ];
    let state = actions.reduce(reduceTranscript, initialTranscript());
    expect(state.subagents).toEqual([
      {
        agentId: "child-1",
        parentCallId: "call_spawn",
        agentType: "test-runner",
        activity: "shell npm test",
        toolCalls: 1,
      },
    ]);
    // The parent's own transcript is untouched by the child's events.
    expect(state.items).toEqual([]);
    expect(state.running).toEqual([]);
    state = reduceTranscript(
      state,
      fromChild(sessionEvent("processing_end", { state: "idle", reason: "completed", toolRounds: 1, usage })),
    );
    expect(state.subagents).toEqual([]);
    expect(state.items.map((i) => (i.kind === "notice" ? i.text : i.kind))).toEqual([
      "↳ test-runner finished after 1 tool call",
    ]);
  });

  it("labels what a hook told the model", () => {
    const state = reduceTranscript(initialTranscript(), {
      type: "event",
      event: sessionEvent("steering_injected", { content: "run the tests first", source: "hook" }),
    });
    expect(state.items.map((i) => (i.kind === "notice" ? i.text : i.kind))).toEqual([
      "From a hook: run the tests first",
    ]);
  });
});
