import type { SessionEvent } from "@attractor/agent";
import { RewindError, type Runtime } from "@attractor/runtime";
import { describe, expect, it } from "vitest";
import { BUGGY_MATH, editCall } from "../src/testing/index.js";
import { runtimeFixture } from "./support/runtime-fixture.js";

const fx = runtimeFixture();

/** The user message texts the latest request carried (steering included). */
const lastUserTexts = () => fx.model.seen().at(-1)?.userTexts ?? [];
const userTurns = (runtime: Runtime) =>
  runtime.session.history.flatMap((t) => (t.kind === "user" || t.kind === "steering" ? [t.content] : []));

describe("steering", () => {
  it("a message steered during a tool call reaches the next request and the transcript", async () => {
    fx.model.script([
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { text: "Using tabs." },
    ]);
    const { runtime, events } = await fx.start();
    runtime.subscribe((u) => {
      if (u.source === "session" && u.event.kind === "tool_call_start") runtime.steer("use tabs, not spaces");
    });
    await runtime.submit("Look at math.js");
    expect(fx.model.seen()).toHaveLength(2);
    expect(fx.model.seen()[0]?.userTexts).toEqual(["Look at math.js"]);
    expect(lastUserTexts()).toEqual(["Look at math.js", "use tabs, not spaces"]);
    expect(events).toContainEqual(expect.objectContaining({ kind: "steering_injected" }));
    expect(events.filter((e) => e.kind === "steering_pending")).toEqual([
      { kind: "steering_pending", messages: ["use tabs, not spaces"] },
      { kind: "steering_pending", messages: [] },
    ]);
    expect(runtime.pendingSteering).toEqual([]);

    // Stored, and back on --continue.
    const id = runtime.session.id;
    await runtime.close();
    expect(await fx.storedKinds(id)).toEqual(["user", "assistant", "tool_results", "steering", "assistant"]);
    fx.model.script([{ text: "Still using tabs." }]);
    const { runtime: continued } = await fx.start({ continueLatest: true });
    expect(userTurns(continued)).toEqual(["Look at math.js", "use tabs, not spaces"]);
    await continued.submit("And now?");
    expect(lastUserTexts()).toEqual(["Look at math.js", "use tabs, not spaces", "And now?"]);
  });

  it("steering that no tool round took is sent as the next message, not lost", async () => {
    fx.model.script([{ text: "Done." }, { text: "Docs updated too." }]);
    const { runtime, events } = await fx.start();
    runtime.subscribe((u) => {
      // The model is writing its final answer: no tool round is left to carry the message.
      if (u.source === "session" && u.event.kind === "assistant_text_start" && fx.model.seen().length === 1)
        runtime.steer("also update the docs");
    });
    await runtime.submit("Rename the module");
    expect(fx.model.seen()).toHaveLength(2);
    expect(lastUserTexts()).toEqual(["Rename the module", "also update the docs"]);
    expect(userTurns(runtime)).toEqual(["Rename the module", "also update the docs"]);
    expect(events.filter((e) => e.kind === "user_input").map((e) => (e as SessionEvent).data)).toEqual([
      { content: "Rename the module", followUp: false },
      { content: "also update the docs", followUp: false },
    ]);
    expect(runtime.pendingSteering).toEqual([]);
  });

  it("an interrupt gives undelivered steering back instead of sending it", async () => {
    fx.model.script([{ raw: { kind: "hang" } }, { text: "Fresh start." }]);
    const { runtime, events } = await fx.start();
    const running = runtime.submit("Take your time");
    while (fx.model.server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    runtime.steer("actually, stop and use yarn");
    expect(runtime.pendingSteering).toEqual(["actually, stop and use yarn"]);
    await runtime.interrupt();
    await running;
    expect(events).toContainEqual({ kind: "steering_dropped", messages: ["actually, stop and use yarn"] });
    expect(runtime.pendingSteering).toEqual([]);
    await runtime.submit("Hello again");
    expect(lastUserTexts()).toEqual(["Take your time", "Hello again"]);
  });

  it("with no turn running, a steered message is simply sent", async () => {
    fx.model.script([{ text: "Hi." }]);
    const { runtime, events } = await fx.start();
    runtime.steer("hello");
    while (!events.some((e) => e.kind === "processing_end")) await new Promise((r) => setTimeout(r, 5));
    expect(lastUserTexts()).toEqual(["hello"]);
  });
});

describe("rewinding the conversation", () => {
  it("drops the later turns from the next request, and --continue rebuilds the rewound branch", async () => {
    fx.model.script([{ text: "a1" }, { text: "a2" }, { text: "a3" }, { text: "a4" }]);
    const { runtime, events } = await fx.start();
    await runtime.submit("one");
    await runtime.submit("two");
    await runtime.submit("three");
    const targets = await runtime.rewindTargets();
    expect(targets.map((t) => [t.text, t.turnIndex, t.changes])).toEqual([
      ["one", 0, 0],
      ["two", 2, 0],
      ["three", 4, 0],
    ]);
    const result = await runtime.rewindConversation(2);
    expect(result).toEqual({ text: "two", files: [] });
    expect(events).toContainEqual({ kind: "conversation_rewound", text: "two", keptTurns: 2 });
    expect(runtime.session.history.map((t) => t.kind)).toEqual(["user", "assistant"]);
    await runtime.submit("two, said better");
    expect(lastUserTexts()).toEqual(["one", "two, said better"]);
    const id = runtime.session.id;
    await runtime.close();
    expect(await fx.storedKinds(id)).toEqual(["user", "assistant", "user", "assistant"]);

    fx.model.script([{ text: "b1" }]);
    const { runtime: continued } = await fx.start({ continueLatest: true });
    expect(continued.session.id).toBe(id);
    expect(userTurns(continued)).toEqual(["one", "two, said better"]);
    await continued.submit("four");
    expect(lastUserTexts()).toEqual(["one", "two, said better", "four"]);
  });

  it("a rewind with nothing sent after it is what --resume finds", async () => {
    fx.model.script([{ text: "a1" }, { text: "a2" }]);
    const { runtime } = await fx.start();
    await runtime.submit("one");
    await runtime.submit("two");
    await runtime.rewindConversation(0);
    expect(runtime.session.history).toEqual([]);
    const id = runtime.session.id;
    await runtime.close();

    fx.model.script([{ text: "fresh" }]);
    const { runtime: resumed } = await fx.start({ resume: id });
    expect(resumed.session.history).toEqual([]);
    await resumed.submit("start over");
    expect(lastUserTexts()).toEqual(["start over"]);
  });

  it("code and conversation restores the files and the history together, todos included", async () => {
    const todo = {
      name: "todo",
      args: { todos: [{ content: "Fix add()", status: "in_progress" }] },
    };
    fx.model.script([
      { text: "Reading." },
      { calls: [todo] },
      { calls: [editCall("anthropic", "src/math.js", "  return a - b;", "  return a + b;")] },
      { text: "Fixed." },
      { text: "Doing it differently." },
    ]);
    const { runtime, events } = await fx.start({ mode: "yolo" });
    await runtime.submit("What does add() do?");
    await runtime.submit("Fix add()");
    expect(await fx.read("src/math.js")).toBe(BUGGY_MATH.replace("a - b", "a + b"));
    expect(runtime.todos).toHaveLength(1);

    const targets = await runtime.rewindTargets();
    expect(targets.map((t) => [t.text, t.changes, t.own.length])).toEqual([
      ["What does add() do?", 1, 0],
      ["Fix add()", 1, 1],
    ]);
    const target = targets[1];
    if (!target?.checkpoint) throw new Error("no checkpoint before the message");
    expect(targets[0]?.checkpoint?.id).toBe(target.checkpoint.id);

    const result = await runtime.rewindConversation(target.turnIndex, {
      restoreCheckpoint: target.checkpoint.id,
    });
    expect(result).toEqual({ text: "Fix add()", files: ["src/math.js"] });
    expect(await fx.read("src/math.js")).toBe(BUGGY_MATH);
    expect(userTurns(runtime)).toEqual(["What does add() do?"]);
    expect(runtime.todos).toEqual([]);
    expect(events).toContainEqual({ kind: "todos_changed", todos: [] });
    // The replaced state was snapshotted: it is a checkpoint of its own.
    const labels = (await runtime.checkpoints.checkpoints()).map((c) => c.label);
    expect(labels.at(-1)).toMatch(/^before rewinding to /);

    await runtime.submit("Fix add() with a test first");
    expect(lastUserTexts()).toEqual(["What does add() do?", "Fix add() with a test first"]);
  });

  it("a message whose first snapshot found nothing changed restores to before its own change, after a restart too", async () => {
    fx.model.script([
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { text: "The test fails." },
      { calls: [editCall("anthropic", "src/math.js", "  return a - b;", "  return a + b;")] },
      { text: "Fixed." },
    ]);
    const { runtime } = await fx.start({ mode: "yolo" });
    await runtime.submit("Run the test");
    await runtime.submit("Fix it");
    await runtime.close();
    // The edit's snapshot found the files as the test run's had: it is still a checkpoint of the
    // second message's own, so a new process finds it in the shadow history alone.
    const { runtime: continued } = await fx.start({ mode: "yolo", continueLatest: true });
    const [run, fix] = await continued.rewindTargets();
    expect(run?.own).toHaveLength(1);
    expect(fix?.own).toHaveLength(1);
    expect(fix?.checkpoint?.tree).toBe(run?.checkpoint?.tree);
    expect(fix?.checkpoint?.id).not.toBe(run?.checkpoint?.id);
    await continued.rewindConversation(fix?.turnIndex as number, {
      restoreCheckpoint: fix?.checkpoint?.id as string,
    });
    expect(await fx.read("src/math.js")).toBe(BUGGY_MATH);
    expect(userTurns(continued)).toEqual(["Run the test"]);
  });

  it("refuses while a turn runs and for a turn that is no user message", async () => {
    fx.model.script([{ text: "a1" }, { raw: { kind: "hang" } }]);
    const { runtime } = await fx.start();
    await runtime.submit("one");
    await expect(runtime.rewindConversation(1)).rejects.toThrow(RewindError);
    const running = runtime.submit("two");
    while (fx.model.server.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
    await expect(runtime.rewindConversation(0)).rejects.toThrow(/while a turn is running/);
    await runtime.interrupt();
    await running;
    expect(userTurns(runtime)).toEqual(["one", "two"]);
  });

  it("rewinds after a compaction to a message the compacted history kept", async () => {
    fx.model.script([
      { text: "a1" },
      { text: "a2" },
      { text: "a3" },
      { text: "a4" },
      { text: "SUMMARY: one and two." },
      { text: "a4 again" },
    ]);
    const { runtime } = await fx.start();
    for (const text of [`one ${"x".repeat(4000)}`, `two ${"x".repeat(4000)}`, "three", "four"])
      await runtime.submit(text);
    await runtime.compact();
    const targets = await runtime.rewindTargets();
    expect(targets.map((t) => t.text)).toEqual(["three", "four"]);
    await runtime.rewindConversation(targets[1]?.turnIndex as number);
    expect(runtime.session.history[0]?.kind).toBe("summary");
    expect(userTurns(runtime)).toEqual(["three"]);
    await runtime.submit("four, again");
    expect(lastUserTexts().slice(-2)).toEqual(["three", "four, again"]);
    const kept = runtime.session.history.map((t) => t.kind);
    const id = runtime.session.id;
    await runtime.close();
    expect(await fx.storedKinds(id)).toEqual(kept);
    const { runtime: resumed } = await fx.start({ resume: id });
    expect(userTurns(resumed)).toEqual(["three", "four, again"]);
  });
});
