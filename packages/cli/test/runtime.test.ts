import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { estimateCost } from "@attractor/llm";
import type { AskUserQuestion } from "@attractor/runtime";
import { ConfigurationError } from "@attractor/runtime";
import type { AskAnswer, PermissionRequest } from "@attractor/runtime/permissions";
import { describe, expect, it } from "vitest";
import { BUGGY_MATH, editCall, TEST_JS } from "../src/testing/index.js";
import { runtimeFixture } from "./support/runtime-fixture.js";

const fx = runtimeFixture();

/** A UI that answers permission prompts from a list and records what it was asked. */
function scriptedUi(answers: AskAnswer[] = [], userAnswers: string[] = []) {
  const asked: PermissionRequest[] = [];
  const questions: AskUserQuestion[] = [];
  return {
    asked,
    questions,
    askPermission: async (request: PermissionRequest) => {
      asked.push(request);
      return answers.shift() ?? "deny";
    },
    askUser: async (question: AskUserQuestion) => {
      questions.push(question);
      return userAnswers.shift() ?? "no idea";
    },
  };
}

describe("runtime", () => {
  it("undo and rewind restore edited, created, deleted and shell-modified files", async () => {
    fx.model.script([
      { calls: [editCall("anthropic", "src/math.js", "  return a - b;", "  return a + b;")] },
      { calls: [{ name: "write_file", args: { file_path: "src/new.js", content: "new\n" } }] },
      { calls: [{ name: "shell", args: { command: "rm test.js" } }] },
      {
        calls: [
          {
            name: "shell",
            args: { command: "echo '// touched' >> src/math.js && mkdir -p gen && echo out > gen/out.txt" },
          },
        ],
      },
      { text: "Done." },
    ]);
    const { runtime, events } = await fx.start({ mode: "yolo" });
    await runtime.submit("Change things");
    expect(await fx.read("src/math.js")).toBe(`${BUGGY_MATH.replace("a - b", "a + b")}// touched\n`);
    expect(existsSync(join(fx.project, "test.js"))).toBe(false);
    expect(await fx.read("gen/out.txt")).toBe("out\n");

    const groups = await runtime.rewindPoints();
    expect(groups).toHaveLength(1);
    const group = groups[0];
    expect(group?.checkpoints.map((c) => c.toolName)).toEqual(["edit_file", "write_file", "shell", "shell"]);
    expect(runtime.userMessageText?.(group?.userMessageId as string)).toBe("Change things");

    // Undo: back to before the last change (the second shell command).
    const undone = await runtime.undo();
    expect([...(undone?.files ?? [])].sort()).toEqual(["gen/out.txt", "src/math.js"]);
    expect(await fx.read("src/math.js")).toBe(BUGGY_MATH.replace("a - b", "a + b"));
    expect(existsSync(join(fx.project, "gen", "out.txt"))).toBe(false);
    expect(events).toContainEqual({ kind: "checkpoint_restored", files: undone?.files });

    // Rewind to before the first change of the message: everything as it was.
    const first = group?.checkpoints[0]?.id as string;
    const preview = await runtime.previewRestore(first);
    expect(Object.fromEntries(preview.files.map((f) => [f.path, f.change]))).toEqual({
      "src/math.js": "modified",
      "src/new.js": "deleted",
      "test.js": "created",
    });
    await runtime.restore(first);
    expect(await fx.read("src/math.js")).toBe(BUGGY_MATH);
    expect(await fx.read("test.js")).toBe(TEST_JS);
    expect(existsSync(join(fx.project, "src", "new.js"))).toBe(false);
  });

  it("asks in normal mode; 'always allow' lasts the session and sticks across --resume", async () => {
    const shell = { name: "shell", args: { command: "node test.js" } };
    fx.model.script([{ calls: [shell] }, { calls: [shell] }, { text: "Ran it twice." }]);
    const ui = scriptedUi(["allow_always"]);
    const { runtime } = await fx.start({ ui });
    await runtime.submit("Run the test twice");
    expect(ui.asked).toHaveLength(1);
    expect(ui.asked[0]).toMatchObject({
      kind: "shell",
      command: "node test.js",
      // As narrow as the command: `node:*` would allow any script.
      alwaysRules: ["shell(node test.js)"],
    });
    const results = fx.model.seen().at(-1)?.toolResults ?? [];
    expect(results.map((r) => r.includes("FAIL: add(2, 3)"))).toEqual([true, true]);
    const id = runtime.session.id;
    await runtime.close();

    fx.model.script([{ calls: [shell] }, { text: "Again without asking." }]);
    const ui2 = scriptedUi([]);
    const { runtime: resumed, events } = await fx.start({ ui: ui2, resume: id });
    expect(events).toContainEqual({ kind: "session_changed", sessionId: id, restoredTurns: 6 });
    await resumed.submit("Once more");
    expect(ui2.asked).toHaveLength(0);
    expect(fx.model.seen().at(-1)?.toolResults.at(-1)).toContain("FAIL: add(2, 3)");
  });

  it("/clear starts a session without the previous session's 'always allow' rules", async () => {
    const shell = { name: "shell", args: { command: "node test.js" } };
    fx.model.script([{ calls: [shell] }, { text: "ran" }, { calls: [shell] }, { text: "ran again" }]);
    const ui = scriptedUi(["allow_always", "allow_once"]);
    const { runtime } = await fx.start({ ui });
    await runtime.submit("Run the test");
    await runtime.clear();
    await runtime.submit("Run it again");
    expect(ui.asked).toHaveLength(2);
  });

  it("a denied prompt gives the model the user's refusal, and nothing runs", async () => {
    fx.model.script([
      { calls: [editCall("anthropic", "src/math.js", "  return a - b;", "  return a + b;")] },
      { text: "Understood." },
    ]);
    const ui = scriptedUi(["deny"]);
    const { runtime } = await fx.start({ ui });
    await runtime.submit("Fix it");
    expect(ui.asked[0]?.kind).toBe("edit");
    expect(fx.model.seen().at(-1)?.toolResults[0]).toContain("the user declined this edit_file call");
    expect(await fx.read("src/math.js")).toBe(BUGGY_MATH);
    expect(await runtime.rewindPoints()).toEqual([]);
  });

  it("a !command runs through the permission policy and its output reaches the model as context", async () => {
    fx.model.script([{ text: "Seen." }]);
    const ui = scriptedUi(["deny"]);
    const { runtime } = await fx.start({ ui });
    // A read-only command needs no prompt in normal mode.
    const listed = await runtime.runUserCommand("ls src");
    expect(listed).toMatchObject({ kind: "ran", exitCode: 0 });
    // One that changes files asks first; refused, it does not run and adds nothing.
    const refused = await runtime.runUserCommand("rm test.js");
    expect(refused.kind).toBe("denied");
    expect(ui.asked.at(-1)?.kind).toBe("shell");
    expect(existsSync(join(fx.project, "test.js"))).toBe(true);
    await runtime.submit("What did that list?");
    const sent = fx.model.seen().at(-1)?.userTexts.join("\n") ?? "";
    expect(sent).toContain("$ ls src");
    expect(sent).toContain("math.js");
    expect(sent).toContain("(exit 0)");
    expect(sent).not.toContain("rm test.js");
    expect(sent.indexOf("math.js")).toBeLessThan(sent.indexOf("What did that list?"));
    // The system prompt says such attached content is already provided.
    expect(JSON.stringify(fx.model.seen().at(-1)?.body.system)).toContain("is already provided and current");
  });

  it("plan mode offers read-only tools only; a mode or model switch takes effect on the next call", async () => {
    fx.model.script([{ text: "Plan: change - to +." }, { text: "ok" }]);
    const { runtime, events } = await fx.start({ mode: "plan" });
    await runtime.submit("Plan the fix");
    const offered = fx.model.seen()[0]?.tools ?? [];
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("edit_file");
    expect(offered).not.toContain("write_file");
    expect(() => runtime.setModel("gpt-5.2")).toThrow(/belongs to openai/);
    runtime.setModel("claude-haiku-4-5");
    expect(runtime.model).toBe("claude-haiku-4-5");
    runtime.setMode("auto-edit");
    expect(runtime.mode).toBe("auto-edit");
    expect(events).toContainEqual({ kind: "mode_changed", mode: "auto-edit" });
    await runtime.submit("Now do it");
    expect(fx.model.seen()[1]?.tools).toContain("edit_file");
    expect(fx.model.seen()[1]?.model).toBe("claude-haiku-4-5");
  });

  it("keeps the todo list, answers ask_user through the UI, and sums tokens and cost", async () => {
    fx.model.script([
      {
        calls: [
          {
            name: "todo",
            args: {
              todos: [
                { content: "Find the bug", status: "completed" },
                { content: "Fix it", status: "in_progress" },
              ],
            },
          },
        ],
      },
      { calls: [{ name: "ask_user", args: { question: "Fix or rewrite?", options: ["fix", "rewrite"] } }] },
      { text: "Fixing it, as you chose." },
    ]);
    const ui = scriptedUi([], ["fix"]);
    const { runtime, events } = await fx.start({ ui });
    await runtime.submit("Sort out add()");
    expect(runtime.todos).toEqual([
      { id: "1", content: "Find the bug", status: "completed" },
      { id: "2", content: "Fix it", status: "in_progress" },
    ]);
    expect(events.some((e) => e.kind === "todos_changed")).toBe(true);
    expect(ui.questions).toEqual([{ question: "Fix or rewrite?", options: ["fix", "rewrite"] }]);
    expect(fx.model.seen().at(-1)?.toolResults.at(-1)).toBe("The user answered: fix");

    const cost = runtime.cost();
    expect(cost).toMatchObject({ inputTokens: 360, outputTokens: 90, totalTokens: 450 });
    expect(cost.costUsd).toBeCloseTo(
      estimateCost(runtime.model, { inputTokens: 360, outputTokens: 90, totalTokens: 450 }) as number,
      12,
    );
    expect(runtime.contextPercent()).toBeCloseTo((150 / runtime.session.profile.contextWindowSize) * 100, 1);

    // A resumed session gets its todo list back from the stored history.
    const id = runtime.session.id;
    await runtime.close();
    const { runtime: resumed } = await fx.start({ resume: id });
    expect(resumed.todos.map((t) => t.status)).toEqual(["completed", "in_progress"]);
  });

  it("clear starts a new transcript; resume switches back to a stored one", async () => {
    fx.model.script([{ text: "first" }, { text: "second" }, { text: "third" }]);
    const { runtime, events } = await fx.start();
    await runtime.submit("one");
    const firstId = runtime.session.id;
    await runtime.clear();
    expect(runtime.session.id).not.toBe(firstId);
    await runtime.submit("two");
    expect(fx.model.seen()[1]?.userTexts).toEqual(["two"]);
    const listed = await runtime.listSessions();
    expect(listed.map((s) => s.sessionId).sort()).toEqual([firstId, runtime.session.id].sort());
    await runtime.resume(firstId);
    expect(runtime.session.id).toBe(firstId);
    await runtime.submit("three");
    expect(fx.model.seen()[2]?.userTexts).toEqual(["one", "three"]);
    expect(events.filter((e) => e.kind === "session_changed")).toHaveLength(2);
  });

  it("a compacted history is stored as the transcript's new branch and resumed as such", async () => {
    fx.model.script([{ text: "a1" }, { text: "a2" }, { text: "a3" }, { text: "SUMMARY: add() subtracts." }]);
    const { runtime } = await fx.start();
    for (const text of ["one", "two", "three"]) await runtime.submit(`${text} ${"x".repeat(2000)}`);
    await runtime.compact("the math bug");
    const compacted = runtime.session.history.map((t) => t.kind);
    expect(compacted).toContain("summary");
    expect(compacted.length).toBeLessThan(6);
    const id = runtime.session.id;
    await runtime.close();

    expect(await fx.storedKinds(id)).toEqual(compacted);
    fx.model.script([{ text: "next" }]);
    const { runtime: resumed } = await fx.start({ resume: id });
    expect(resumed.session.history.map((t) => t.kind)).toEqual(compacted);
  });

  it("interrupt stops a running model call and the session stays usable", async () => {
    fx.model.script([{ raw: { kind: "hang" } }, { text: "Back." }]);
    const { runtime, events } = await fx.start();
    const running = runtime.submit("Take your time");
    while (fx.model.server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await runtime.interrupt();
    await running;
    expect(events.find((e) => e.kind === "processing_end")).toMatchObject({ data: { reason: "aborted" } });
    await runtime.submit("Still there?");
    expect(events.filter((e) => e.kind === "assistant_text_end").at(-1)).toMatchObject({
      data: { text: "Back." },
    });
  });

  it("rejects a configuration it cannot run with", async () => {
    await expect(fx.start({ env: { PATH: "" } })).rejects.toThrow(ConfigurationError);
    await expect(fx.start({ provider: "mistral" })).rejects.toThrow(/Unknown provider "mistral"/);
    await expect(fx.start({ model: "gpt-5.2" })).rejects.toThrow(/set OPENAI_API_KEY/);
    await writeFile(join(fx.project, "not-a-dir"), "");
    await expect(fx.start({ projectDir: join(fx.project, "not-a-dir") })).rejects.toThrow(/does not exist/);
  });
});
