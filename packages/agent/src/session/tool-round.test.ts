import type { ToolCallData } from "@attractor/llm";
import { describe, expect, it } from "vitest";
import { mapRegistry } from "../../test/support/fixtures.js";
import { nodeEnvironment } from "../testing/index.js";
import { DEFAULT_SESSION_CONFIG } from "../types/config.js";
import type { EventDataMap } from "../types/events.js";
import type { RegisteredTool } from "../types/tool.js";
import {
  INTERRUPTED_ABANDONED,
  INTERRUPTED_BEFORE_RUN,
  INTERRUPTED_WHILE_RUNNING,
  runToolRound,
} from "./tool-round.js";

const tool = (name: string, executor: RegisteredTool["executor"]): RegisteredTool => ({
  definition: { name, description: name, parameters: { type: "object", properties: {} } },
  executor,
});
/** Resolves when the signal aborts, like a tool that honours cancellation; `running` settles once it runs. */
function stopsOnAbortTool(): { executor: RegisteredTool["executor"]; running: Promise<void> } {
  let markRunning = () => {};
  const running = new Promise<void>((r) => {
    markRunning = r;
  });
  const executor: RegisteredTool["executor"] = (_a, _e, ctx) =>
    new Promise((resolve) => {
      ctx.signal?.addEventListener("abort", () => resolve("partial output"), { once: true });
      markRunning();
    });
  return { executor, running };
}
/** Never finishes, whatever the signal says; `running` settles once it runs. */
function ignoresAbortTool(): { executor: RegisteredTool["executor"]; running: Promise<void> } {
  let markRunning = () => {};
  const running = new Promise<void>((r) => {
    markRunning = r;
  });
  return {
    executor: () => {
      markRunning();
      return new Promise(() => {});
    },
    running,
  };
}

function round(
  tools: RegisteredTool[],
  calls: ToolCallData[],
  controller: AbortController,
  parallel: boolean,
) {
  const ends: EventDataMap["tool_call_end"][] = [];
  const starts: string[] = [];
  const run = runToolRound(calls, {
    registry: mapRegistry(tools),
    allowed: () => true,
    environment: nodeEnvironment("/"),
    config: DEFAULT_SESSION_CONFIG,
    defaultCommandTimeoutMs: 10_000,
    parallel,
    signal: controller.signal,
    onStart: (d) => starts.push(d.callId),
    onOutputDelta: () => {},
    onEnd: (d) => ends.push(d),
    interruptGraceMs: 30,
  });
  return { run, ends, starts };
}

const call = (id: string, name: string): ToolCallData => ({ id, name, arguments: {} });

describe("runToolRound when interrupted", () => {
  it("marks the running call as interrupted and does not run the calls after it", async () => {
    const controller = new AbortController();
    const slow = stopsOnAbortTool();
    const { run, ends, starts } = round(
      [tool("slow", slow.executor), tool("other", async () => "should not run")],
      [call("a", "slow"), call("b", "other")],
      controller,
      false,
    );
    // Abort only once the call is really running, so a loaded machine cannot turn this into a before-run case.
    await slow.running;
    controller.abort();
    const records = await run;
    expect(records.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a", true],
      ["b", true],
    ]);
    expect(records[0]!.content).toBe(`partial output\n${INTERRUPTED_WHILE_RUNNING}`);
    expect(records[1]!.content).toBe(INTERRUPTED_BEFORE_RUN);
    expect(ends.map((e) => e.callId)).toEqual(["a", "b"]);
    expect(starts).toEqual(["a", "b"]);
  });

  it("abandons a call that ignores the signal after the grace period, keeping finished results", async () => {
    const controller = new AbortController();
    const stuck = ignoresAbortTool();
    let quickDone = () => {};
    const quickFinished = new Promise<void>((r) => {
      quickDone = r;
    });
    const { run, ends } = round(
      [
        tool("stuck", stuck.executor),
        tool("quick", async () => {
          quickDone();
          return "quick result";
        }),
      ],
      [call("a", "stuck"), call("b", "quick")],
      controller,
      true,
    );
    await Promise.all([stuck.running, quickFinished]);
    await new Promise((r) => setImmediate(r));
    controller.abort();
    const records = await run;
    expect(records).toEqual([
      { toolCallId: "a", toolName: "stuck", content: INTERRUPTED_ABANDONED, isError: true },
      { toolCallId: "b", toolName: "quick", content: "quick result", isError: false },
    ]);
    expect(ends.map((e) => [e.callId, e.isError])).toEqual([
      ["b", false],
      ["a", true],
    ]);
  });

  it("gives every call a result without running anything when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let ran = false;
    const { run, ends } = round(
      [
        tool("t", async () => {
          ran = true;
          return "x";
        }),
      ],
      [call("a", "t")],
      controller,
      false,
    );
    expect(await run).toEqual([
      { toolCallId: "a", toolName: "t", content: INTERRUPTED_BEFORE_RUN, isError: true },
    ]);
    expect(ran).toBe(false);
    expect(ends).toEqual([]);
  });
});
