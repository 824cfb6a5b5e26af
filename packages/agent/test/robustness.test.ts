import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Session } from "../src/session/session.js";
import { nodeEnvironment, scriptedClient } from "../src/testing/index.js";
import { boundArgumentDepth, MAX_ARGUMENT_DEPTH, nestsDeeperThan } from "../src/tools/argument-depth.js";
import type { SessionEvent } from "../src/types/events.js";
import { collect, fnTool, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

let ran = 0;
const echo = fnTool(
  "echo",
  async (args) => {
    ran++;
    return `echo:${String(args.text)}`;
  },
  { text: { type: "string" }, extra: {} },
);

function nested(depth: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

function session(script: Parameters<typeof scriptedClient>[0], config = {}) {
  const s = new Session({
    profile: testProfile([echo]),
    environment: nodeEnvironment(dir),
    client: scriptedClient(script),
    config,
  });
  return { session: s, all: collect(s.events()) };
}

describe("tool arguments nested thousands deep", () => {
  it("get a clear error result; the run, the history and the next request go on", async () => {
    ran = 0;
    const { session: s, all } = session([
      { toolCalls: [{ name: "echo", args: { text: "x", extra: nested(5000) } }] },
      { toolCalls: [{ name: "echo", args: { text: "flat" } }] },
      { text: "done" },
    ]);
    await s.submit("go");
    await s.close();
    const events: SessionEvent[] = await all;
    const ends = events.filter((e) => e.kind === "tool_call_end");
    expect(ends[0]?.data.isError).toBe(true);
    expect(ends[0]?.data.output).toMatch(/nested more than 100 levels deep/);
    expect(ends[1]?.data.output).toBe("echo:flat");
    expect(ran).toBe(1);
    expect(events.find((e) => e.kind === "processing_end")?.data.reason).toBe("completed");
    // What stays in the history is shallow: it serialises for the transcript and the next request.
    expect(() => JSON.stringify(s.history)).not.toThrow();
  });

  it("cuts only the calls that nest too deep, in toolCalls and parts alike", () => {
    const deep = { id: "d", name: "echo", arguments: { extra: nested(MAX_ARGUMENT_DEPTH + 5) } };
    const flat = { id: "f", name: "echo", arguments: { text: "x" } };
    const rawDeep = {
      id: "r",
      name: "echo",
      arguments: {},
      rawArguments: `${"[".repeat(500)}${"]".repeat(500)}`,
    };
    const out = boundArgumentDepth(
      [deep, flat, rawDeep],
      [deep, flat, rawDeep].map((toolCall) => ({ kind: "tool_call" as const, toolCall })),
    );
    expect(out.calls[1]).toBe(flat);
    expect(out.calls[0]?.arguments).toEqual({});
    expect(out.calls[2]?.rawArguments).not.toContain("[[[");
    expect(out.parts.map((p) => (p.kind === "tool_call" ? p.toolCall.arguments : null))).toEqual([
      {},
      { text: "x" },
      {},
    ]);
    expect(nestsDeeperThan(nested(MAX_ARGUMENT_DEPTH), MAX_ARGUMENT_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_ARGUMENT_DEPTH + 1), MAX_ARGUMENT_DEPTH)).toBe(true);
  });
});

describe("loop detection escalates", () => {
  it("ends the cycle with an error the host sees after repeated detections", async () => {
    const { session: s, all } = session(() => ({ toolCalls: [{ name: "echo", args: { text: "same" } }] }), {
      maxToolRoundsPerInput: 100,
    });
    await s.submit("go");
    await s.close();
    const events = await all;
    expect(events.filter((e) => e.kind === "loop_detection")).toHaveLength(2);
    const error = events.find((e) => e.kind === "error");
    expect(error?.data).toMatchObject({ errorName: "LoopDetectedError", fatal: false });
    expect(error?.data.message).toMatch(/kept repeating the same tool calls after 3 loop warnings/);
    expect(events.find((e) => e.kind === "processing_end")?.data.reason).toBe("error");
    // Three full windows of the default 10, then the stop: far short of the 100-round limit.
    expect(events.filter((e) => e.kind === "tool_call_end")).toHaveLength(30);
  });

  it("counts afresh for each input, and 0 turns the stop off", async () => {
    const { session: s, all } = session(
      (_r, i) => (i < 12 ? { toolCalls: [{ name: "echo", args: { text: "same" } }] } : { text: "ok" }),
      { maxLoopDetections: 0 },
    );
    await s.submit("go");
    await s.close();
    const events = await all;
    expect(events.some((e) => e.kind === "error")).toBe(false);
    expect(events.find((e) => e.kind === "processing_end")?.data.reason).toBe("completed");
  });
});
