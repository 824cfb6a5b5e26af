import { AuthenticationError, ContextLengthError, ServerError } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Session } from "../src/session/session.js";
import { nodeEnvironment, type ScriptedReply, scriptedClient } from "../src/testing/index.js";
import type { SessionEvent } from "../src/types/events.js";
import type { Turn } from "../src/types/turn.js";
import { collect, fnTool, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const echo = fnTool("echo", async (args) => `echo:${String(args.text)}`, { text: { type: "string" } });
const kinds = (events: readonly SessionEvent[]) => events.map((e) => e.kind);

function makeSession(
  replies: Parameters<typeof scriptedClient>[0],
  opts: {
    tools?: Parameters<typeof testProfile>[0];
    config?: ConstructorParameters<typeof Session>[0]["config"];
    parallel?: boolean;
    contextWindowSize?: number;
    history?: readonly Turn[];
    retry?: ConstructorParameters<typeof Session>[0]["retry"];
  } = {},
) {
  const client = scriptedClient(replies);
  const session = new Session({
    profile: testProfile(opts.tools ?? [echo], {
      ...(opts.parallel !== undefined && { parallel: opts.parallel }),
      ...(opts.contextWindowSize !== undefined && { contextWindowSize: opts.contextWindowSize }),
    }),
    environment: nodeEnvironment(dir),
    client,
    ...(opts.config && { config: opts.config }),
    ...(opts.history && { history: opts.history }),
    ...(opts.retry && { retry: opts.retry }),
  });
  const all = collect(session.events());
  return { session, client, all };
}

describe("Session loop", () => {
  it("runs text-only input to natural completion with events in order, then closes", async () => {
    const { session, all } = makeSession([{ text: "Hello there." }]);
    expect(session.state).toBe("idle");
    await session.submit("hi");
    expect(session.state).toBe("idle");
    await session.close();
    expect(session.state).toBe("closed");
    const events = await all;
    expect(kinds(events)).toEqual([
      "session_start",
      "user_input",
      "assistant_text_start",
      "assistant_text_delta",
      "assistant_text_delta",
      "assistant_text_end",
      "processing_end",
      "session_end",
    ]);
    const deltas = events.flatMap((e) => (e.kind === "assistant_text_delta" ? [e.data.delta] : []));
    expect(deltas.join("")).toBe("Hello there.");
    expect(events.every((e) => e.sessionId === session.id && !Number.isNaN(Date.parse(e.timestamp)))).toBe(
      true,
    );
    expect(JSON.parse(JSON.stringify(events))).toEqual(events);
  });

  it("executes tool calls, sends results back and loops until a text answer", async () => {
    const { session, client, all } = makeSession([
      { toolCalls: [{ name: "echo", args: { text: "a" } }] },
      { toolCalls: [{ name: "echo", args: { text: "b" } }] },
      { text: "done" },
    ]);
    await session.submit("go");
    await session.close();
    const events = await all;
    const ends = events.filter((e) => e.kind === "tool_call_end");
    expect(ends.map((e) => e.data.output)).toEqual(["echo:a", "echo:b"]);
    const start = events.find((e) => e.kind === "tool_call_start");
    expect(start?.data).toMatchObject({ toolName: "echo", arguments: { text: "a" } });
    expect(client.requests).toHaveLength(3);
    const lastMessages = client.requests[2]!.messages;
    const toolResults = lastMessages.filter((m) => m.role === "tool");
    expect(
      toolResults.map((m) => (m.content[0] as { toolResult: { content: unknown } }).toolResult.content),
    ).toEqual(["echo:a", "echo:b"]);
    expect(lastMessages[0]!.role).toBe("system");
    expect(session.history.map((t) => t.kind)).toEqual([
      "user",
      "assistant",
      "tool_results",
      "assistant",
      "tool_results",
      "assistant",
    ]);
  });

  it("turns unknown tools, failing tools and tool errors into error results the model sees", async () => {
    const boom = fnTool("boom", async () => {
      throw new Error("disk on fire");
    });
    const { session, client } = makeSession(
      [{ toolCalls: [{ name: "nope" }, { name: "boom" }] }, { text: "recovered" }],
      { tools: [echo, boom] },
    );
    await session.submit("go");
    const results = session.history.find((t) => t.kind === "tool_results");
    expect(results?.kind === "tool_results" && results.results.map((r) => [r.isError, r.content])).toEqual([
      [true, "Unknown tool: nope"],
      [true, "Tool error (boom): disk on fire"],
    ]);
    expect(client.requests).toHaveLength(2);
    expect(session.state).toBe("idle");
  });

  it("stops at maxToolRoundsPerInput with TURN_LIMIT and stays usable", async () => {
    const loop: ScriptedReply = { toolCalls: [{ name: "echo", args: { text: "x" } }] };
    const { session, client, all } = makeSession(() => loop, {
      config: { maxToolRoundsPerInput: 2, enableLoopDetection: false },
    });
    await session.submit("go");
    expect(client.requests).toHaveLength(2);
    expect(session.state).toBe("idle");
    await session.close();
    const limit = (await all).find((e) => e.kind === "turn_limit");
    expect(limit?.data).toMatchObject({ limit: "max_tool_rounds_per_input", value: 2, toolRounds: 2 });
  });

  it("counts maxTurns across inputs", async () => {
    const { session, client, all } = makeSession(() => ({ text: "ok" }), { config: { maxTurns: 2 } });
    await session.submit("one");
    await session.submit("two");
    await session.submit("three");
    expect(client.requests).toHaveLength(2);
    await session.close();
    const limits = (await all).filter((e) => e.kind === "turn_limit");
    expect(limits.map((e) => e.data.limit)).toEqual(["max_turns"]);
  });

  it("injects steering after the current tool round as a user message", async () => {
    let session!: Session;
    const slow = fnTool("slow", async () => {
      session.steer("use tabs, not spaces");
      return "slow done";
    });
    const made = makeSession([{ toolCalls: [{ name: "slow" }] }, { text: "ok" }], { tools: [slow] });
    session = made.session;
    await session.submit("go");
    await session.close();
    const events = await made.all;
    const order = kinds(events).filter((k) => k === "tool_call_end" || k === "steering_injected");
    expect(order).toEqual(["tool_call_end", "steering_injected"]);
    const second = made.client.requests[1]!.messages.at(-1)!;
    expect(second.role).toBe("user");
    expect(second.content[0]).toEqual({ kind: "text", text: "use tabs, not spaces" });
    expect(session.history.at(-2)).toMatchObject({ kind: "steering", source: "host" });
  });

  it("drains steering queued while idle before the first call", async () => {
    const { session, client } = makeSession([{ text: "ok" }]);
    session.steer("be brief");
    await session.submit("hi");
    const msgs = client.requests[0]!.messages.slice(1);
    expect(msgs.map((m) => (m.content[0] as { text: string }).text)).toEqual(["hi", "be brief"]);
  });

  it("takeSteering returns steering that came too late for a tool round, and it is not injected", async () => {
    let session!: Session;
    const made = makeSession((_request, i) => {
      // Steering arrives while the final answer is being produced: no tool round follows.
      if (i === 0) session.steer("also update the docs");
      return { text: i === 0 ? "done" : "ok" };
    });
    session = made.session;
    await session.submit("go");
    expect(session.history.some((t) => t.kind === "steering")).toBe(false);
    expect(session.takeSteering()).toEqual(["also update the docs"]);
    expect(session.takeSteering()).toEqual([]);
    await session.submit("next");
    expect(session.history.some((t) => t.kind === "steering")).toBe(false);
    const texts = made.client.requests[1]!.messages.slice(1).map(
      (m) => (m.content[0] as { text: string }).text,
    );
    expect(texts).not.toContain("also update the docs");
  });

  it("runs follow-ups after natural completion, in one processing cycle", async () => {
    const { session, client, all } = makeSession(() => ({ text: "ok" }));
    session.followUp("second");
    const first = session.submit("first");
    session.followUp("third");
    await first;
    await session.close();
    const events = await all;
    const inputs = events.flatMap((e) =>
      e.kind === "user_input" ? [[e.data.content, e.data.followUp]] : [],
    );
    expect(inputs).toEqual([
      ["second", false],
      ["first", true],
      ["third", true],
    ]);
    expect(kinds(events).filter((k) => k === "processing_end").length).toBeGreaterThanOrEqual(1);
    expect(client.requests).toHaveLength(3);
  });

  it("applies a reasoning-effort change on the next call", async () => {
    let session!: Session;
    const flip = fnTool("flip", async () => {
      session.setReasoningEffort("high");
      return "ok";
    });
    const made = makeSession([{ toolCalls: [{ name: "flip" }] }, { text: "done" }], {
      tools: [flip],
      config: { reasoningEffort: "low" },
    });
    session = made.session;
    await session.submit("go");
    expect(made.client.requests.map((r) => r.reasoningEffort)).toEqual(["low", "high"]);
  });

  it("detects a repeating 3-cycle of tool calls with the default window of 10", async () => {
    const cycle = ["a", "b", "c"];
    const { session, client, all } = makeSession(
      (_r, i) =>
        i < 12 ? { toolCalls: [{ name: "echo", args: { text: cycle[i % 3] } }] } : { text: "stopping" },
      { config: { maxToolRoundsPerInput: 12 } },
    );
    await session.submit("go");
    await session.close();
    const events = await all;
    const detection = events.find((e) => e.kind === "loop_detection");
    expect(detection?.data.patternLength).toBe(3);
    expect(detection?.data.message).toBe(
      "Loop detected: the last 10 tool calls follow a repeating pattern. Try a different approach.",
    );
    const idx = events.indexOf(detection!);
    expect(events.filter((e, i) => e.kind === "tool_call_end" && i < idx)).toHaveLength(10);
    const eleventh = client.requests[10]!.messages.at(-1)!;
    expect(eleventh.role).toBe("user");
    expect(session.history.some((t) => t.kind === "steering" && t.source === "loop_detection")).toBe(true);
  });

  it("does not flag varied tool calls as a loop", async () => {
    const { session, all } = makeSession((_r, i) =>
      i < 12 ? { toolCalls: [{ name: "echo", args: { text: `n${i}` } }] } : { text: "done" },
    );
    await session.submit("go");
    await session.close();
    expect(kinds(await all)).not.toContain("loop_detection");
  });

  it("abort kills a running sleep within 3 s and closes the session", async () => {
    const shell = fnTool("shell", async (args, env, ctx) => {
      const r = await env.execCommand(String(args.command), {
        timeoutMs: 60_000,
        ...(ctx.signal && { signal: ctx.signal }),
      });
      return { output: r.output, details: { exitCode: r.exitCode } };
    });
    const { session, all } = makeSession(
      [{ toolCalls: [{ name: "shell", args: { command: "sleep 30" } }] }, { text: "x" }],
      {
        tools: [shell],
      },
    );
    const started = new Promise<void>((resolve) =>
      session.subscribe((e) => {
        if (e.kind === "tool_call_start") setTimeout(resolve, 100);
      }),
    );
    const running = session.submit("sleep");
    await started;
    const t0 = Date.now();
    await session.abort();
    await running;
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(session.state).toBe("closed");
    const events = await all;
    expect(kinds(events).slice(-2)).toEqual(["processing_end", "session_end"]);
    expect(events.find((e) => e.kind === "processing_end")?.data.reason).toBe("aborted");
    await expect(session.submit("again")).rejects.toThrow(/closed/);
  });

  it("abort cancels a model stream in flight", async () => {
    const { session, all } = makeSession([{ hang: true }]);
    const running = session.submit("hi");
    await new Promise((r) => setTimeout(r, 20));
    await session.abort();
    await running;
    const events = await all;
    expect(kinds(events)).not.toContain("error");
    expect(events.at(-1)?.data).toMatchObject({ state: "closed", reason: "aborted" });
  });

  it("closes on AuthenticationError with a fatal ERROR", async () => {
    const { session, all } = makeSession([
      { error: new AuthenticationError("bad key", { provider: "x", statusCode: 401 }) },
    ]);
    await session.submit("hi");
    expect(session.state).toBe("closed");
    const events = await all;
    const error = events.find((e) => e.kind === "error");
    expect(error?.data).toMatchObject({ errorName: "AuthenticationError", statusCode: 401, fatal: true });
    expect(kinds(events).slice(-3)).toEqual(["error", "processing_end", "session_end"]);
  });

  it("warns on ContextLengthError and stays usable", async () => {
    const { session, all } = makeSession([
      { error: new ContextLengthError("too long", { provider: "x", statusCode: 413 }) },
      { text: "fits now" },
    ]);
    await session.submit("hi");
    expect(session.state).toBe("idle");
    await session.submit("shorter");
    expect(session.history.at(-1)).toMatchObject({ kind: "assistant", content: "fits now" });
    await session.close();
    const events = await all;
    expect(kinds(events).filter((k) => k === "warning" || k === "error")).toEqual(["warning", "error"]);
    expect(events.find((e) => e.kind === "warning")?.data.code).toBe("context_length");
    expect(events.find((e) => e.kind === "error")?.data.fatal).toBe(false);
  });

  it("retries a transient provider error through the llm layer's policy by default", async () => {
    const { session, client, all } = makeSession(
      [{ error: new ServerError("overloaded", { provider: "x", statusCode: 503 }) }, { text: "back" }],
      { retry: { baseDelayMs: 1, jitter: false } },
    );
    await session.submit("hi");
    await session.close();
    expect(client.requests).toHaveLength(2);
    expect(kinds(await all)).not.toContain("error");
    expect(session.history.at(-1)).toMatchObject({ kind: "assistant", content: "back" });
  });

  it("keeps the session usable after a transient error that outlived its retries", async () => {
    const { session, client, all } = makeSession(
      [{ error: new ServerError("overloaded", { provider: "x", statusCode: 503 }) }, { text: "back" }],
      { retry: { maxRetries: 0 } },
    );
    await session.submit("hi");
    expect(session.state).toBe("idle");
    await session.submit("again");
    expect(client.requests).toHaveLength(2);
    expect(session.history.at(-1)).toMatchObject({ kind: "assistant", content: "back" });
    await session.close();
    const errors = (await all).filter((e) => e.kind === "error");
    expect(errors.map((e) => e.data)).toMatchObject([{ errorName: "ServerError", fatal: false }]);
  });

  it("warns once when context usage crosses 80% of the window", async () => {
    const { session, all } = makeSession(
      [
        { toolCalls: [{ name: "echo", args: { text: "x" } }], usage: { inputTokens: 500, outputTokens: 10 } },
        { text: "fine", usage: { inputTokens: 850, outputTokens: 10 } },
        { text: "still", usage: { inputTokens: 900, outputTokens: 10 } },
      ],
      { contextWindowSize: 1000 },
    );
    await session.submit("a");
    await session.submit("b");
    await session.close();
    const warnings = (await all).filter((e) => e.kind === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.data.message).toBe("Context usage at ~86% of context window");
    expect(session.usage.inputTokens).toBe(2250);
  });

  it("lets beforeToolCall deny or rewrite and afterToolCall replace results", async () => {
    const { session } = makeSession(
      [
        {
          toolCalls: [
            { name: "echo", args: { text: "secret" } },
            { name: "echo", args: { text: "old" } },
          ],
        },
        { text: "ok" },
      ],
      {
        config: {
          beforeToolCall: (call) =>
            call.arguments.text === "secret"
              ? { action: "deny", message: "Permission denied by user" }
              : { action: "rewrite", arguments: { text: "new" } },
          afterToolCall: (_call, result) => ({ ...result, output: `${result.output}!` }),
        },
      },
    );
    await session.submit("go");
    const turn = session.history.find((t) => t.kind === "tool_results");
    expect(turn?.kind === "tool_results" && turn.results.map((r) => [r.isError, r.content])).toEqual([
      [true, "Permission denied by user"],
      [false, "echo:new!"],
    ]);
  });

  it("restores a session from serialised history", async () => {
    const first = makeSession([
      { toolCalls: [{ name: "echo", args: { text: "a" } }] },
      { text: "first answer" },
    ]);
    await first.session.submit("one");
    await first.session.close();
    const stored = first.session.history.map((t) => JSON.stringify(t)).join("\n");
    const history = stored.split("\n").map((l) => JSON.parse(l) as Turn);
    const second = makeSession([{ text: "second answer" }], { history });
    await second.session.submit("two");
    const msgs = second.client.requests[0]!.messages;
    expect(msgs.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(second.session.usage).toEqual(first.session.usage);
  });

  it("resumes a history stored in the middle of a tool round with error results for the open calls", async () => {
    const history: Turn[] = [
      { kind: "user", content: "one", timestamp: "2025-01-01T00:00:00.000Z" },
      {
        kind: "assistant",
        content: "",
        toolCalls: [{ id: "call_open", name: "echo", arguments: { text: "a" } }],
        parts: [],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        timestamp: "2025-01-01T00:00:01.000Z",
      },
    ];
    const { session, client } = makeSession([{ text: "resumed" }], { history });
    await session.submit("two");
    const msgs = client.requests[0]!.messages;
    expect(msgs.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    const result = msgs[3]!.content[0];
    expect(result?.kind === "tool_result" && result.toolResult).toMatchObject({
      toolCallId: "call_open",
      isError: true,
    });
  });

  it("gives every consumer the events from its attach point", async () => {
    const { session } = makeSession(() => ({ text: "ok" }));
    const early = collect(session.events());
    await session.submit("one");
    const late = collect(session.events());
    await session.submit("two");
    await session.close();
    const [e, l] = [await early, await late];
    expect(kinds(e).filter((k) => k === "user_input")).toHaveLength(2);
    expect(kinds(l)[0]).toBe("user_input");
    expect(l).toEqual(e.slice(e.length - l.length));
  });

  it("runs parallel tool calls concurrently when the profile allows it", async () => {
    let active = 0;
    let peak = 0;
    const wait = fnTool("wait_a_bit", async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 30));
      active--;
      return "ok";
    });
    const { session } = makeSession(
      [
        { toolCalls: [{ name: "wait_a_bit" }, { name: "wait_a_bit" }, { name: "wait_a_bit" }] },
        { text: "done" },
      ],
      { tools: [wait], parallel: true },
    );
    await session.submit("go");
    expect(peak).toBe(3);
  });
});
