import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { listModels } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactionLine } from "../src/commands/builtin/compact.js";
import { COMMANDS, completeCommand, nextMode, parseInput, runCommand } from "../src/commands/index.js";
import {
  createFakeRuntime,
  type FakeRuntimeFixture,
  type RecordingHost,
  recordingHost,
} from "./tui-support.js";

describe("parseInput", () => {
  it("splits a command from its arguments and lower-cases the name", () => {
    expect(parseInput("/mode yolo")).toEqual({ kind: "command", name: "mode", args: "yolo" });
    expect(parseInput("  /Compact   keep the API notes  ")).toEqual({
      kind: "command",
      name: "compact",
      args: "keep the API notes",
    });
    expect(parseInput("/help")).toEqual({ kind: "command", name: "help", args: "" });
    expect(parseInput("/resume\nabc")).toEqual({ kind: "command", name: "resume", args: "abc" });
  });

  it("treats paths, double slashes and plain text as messages", () => {
    expect(parseInput("/usr/bin/env is missing")).toEqual({
      kind: "message",
      text: "/usr/bin/env is missing",
    });
    expect(parseInput("//help is a word")).toEqual({ kind: "message", text: "/help is a word" });
    expect(parseInput("fix the test")).toEqual({ kind: "message", text: "fix the test" });
    expect(parseInput("/ spaced")).toEqual({ kind: "message", text: "/ spaced" });
  });
});

describe("completeCommand", () => {
  it("completes a unique prefix with a space, a shared one to the common part", () => {
    expect(completeCommand("/un")).toBe("/undo ");
    expect(completeCommand("/mo")).toBe("/mode");
    expect(completeCommand("/mode")).toBeUndefined();
    expect(completeCommand("/zz")).toBeUndefined();
    expect(completeCommand("plain")).toBeUndefined();
    expect(completeCommand("/mode y")).toBeUndefined();
  });
});

describe("nextMode", () => {
  it("cycles normal → auto-edit → plan → normal and leaves yolo for normal", () => {
    expect(nextMode("normal")).toBe("auto-edit");
    expect(nextMode("auto-edit")).toBe("plan");
    expect(nextMode("plan")).toBe("normal");
    expect(nextMode("yolo")).toBe("normal");
  });
});

describe("slash commands on a runtime", () => {
  let fx: FakeRuntimeFixture;
  let host: RecordingHost;
  const run = (line: string, busy = false) => {
    const parsed = parseInput(line);
    if (parsed.kind !== "command") throw new Error(`not a command: ${line}`);
    return runCommand(parsed.name, parsed.args, { runtime: fx.runtime, host, busy });
  };
  const file = (name: string) => join(fx.project, name);

  beforeEach(async () => {
    fx = await createFakeRuntime();
    host = recordingHost();
  });
  afterEach(() => fx.cleanup());

  it("/help lists every command and the keys", async () => {
    await run("/help");
    const text = host.text();
    for (const c of COMMANDS) expect(text).toContain(`/${c.name}`);
    expect(text).toContain("shift+tab");
    expect(text).toContain("esc");
  });

  it("/undo restores the file as it was before the last change, then says when nothing is left", async () => {
    await writeFile(file("a.txt"), "one\n");
    await fx.checkpoints.snapshot({ label: "before edit_file a.txt", userMessageId: "u1" });
    await writeFile(file("a.txt"), "two\n");

    await run("/undo");
    expect(await readFile(file("a.txt"), "utf8")).toBe("one\n");
    expect(host.shown.at(-1)).toEqual({
      kind: "text",
      tone: "success",
      text: "Undid the last change: a.txt",
    });

    await run("/undo");
    expect(host.shown.at(-1)).toMatchObject({ tone: "info", text: "Nothing to undo." });
  });

  /** Restarts the fixture on a conversation of these user messages (ids m1, m2…), each answered. */
  const conversation = async (...texts: string[]) => {
    await fx.cleanup();
    const ts = new Date().toISOString();
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    fx = await createFakeRuntime({
      history: texts.flatMap((content) => [
        { kind: "user" as const, content, timestamp: ts },
        { kind: "assistant" as const, content: "ok", toolCalls: [], parts: [], usage, timestamp: ts },
      ]),
    });
    fx.runtime.entryIds = texts.flatMap((_, i) => [`m${i + 1}`, `a${i + 1}`]);
  };

  it("/rewind lists every message newest first; code and conversation restores both after a yes", async () => {
    await conversation("make a.txt say v2", "add b.txt", "just a question");
    await writeFile(file("a.txt"), "v1\n");
    await fx.checkpoints.snapshot({ label: "before edit_file a.txt", userMessageId: "m1" });
    await writeFile(file("a.txt"), "v2\n");
    await fx.checkpoints.snapshot({ label: "before write_file b.txt", userMessageId: "m2" });
    await writeFile(file("b.txt"), "new\n");
    await writeFile(file("a.txt"), "v3\n");

    host.picks = [2, 0]; // the oldest message, listed last; then "Code and conversation"
    host.confirms = [true];
    await run("/rewind");

    expect(host.asked[0]?.title).toBe("Rewind to before which message?");
    expect(host.asked[0]?.labels).toEqual(["“just a question”", "“add b.txt”", "“make a.txt say v2”"]);
    expect(host.asked[1]).toEqual({
      title: "Restore what?",
      labels: ["Code and conversation", "Conversation only", "Code only", "Cancel"],
    });
    const diff = host.shown.find((b) => b.kind === "diff");
    if (diff?.kind !== "diff") throw new Error("no diff shown");
    expect(Object.fromEntries(diff.files.map((f) => [f.path, f.change]))).toEqual({
      "a.txt": "modified",
      "b.txt": "deleted",
    });
    expect(diff.patch).toContain("+v1");
    expect(host.asked[2]?.title).toBe("Restore 2 files and rewind the conversation?");
    expect(await readFile(file("a.txt"), "utf8")).toBe("v1\n");
    await expect(readFile(file("b.txt"), "utf8")).rejects.toThrow();
    expect(fx.runtime.calls.rewound).toEqual([{ turnIndex: 0, restoreCheckpoint: expect.any(String) }]);
    expect(fx.runtime.session.history).toEqual([]);
    expect(host.resets).toEqual([true]);
    expect(host.shown.at(-1)).toMatchObject({ tone: "success" });
    expect(host.text()).toContain("the message is back in the input");
  });

  it("/rewind shows how many file changes followed each message", async () => {
    await conversation("make a.txt say v2", "add b.txt", "just a question");
    await fx.checkpoints.snapshot({ label: "first", userMessageId: "m1" });
    await writeFile(file("a.txt"), "v2\n");
    await fx.checkpoints.snapshot({ label: "second", userMessageId: "m2" });
    await writeFile(file("b.txt"), "new\n");
    host.picks = [undefined];
    await run("/rewind");
    const targets = await fx.runtime.rewindTargets();
    expect(targets.map((t) => [t.text, t.changes])).toEqual([
      ["make a.txt say v2", 2],
      ["add b.txt", 1],
      ["just a question", 0],
    ]);
    expect(fx.runtime.calls.rewound).toEqual([]);
  });

  it("/rewind of a message with no file change since offers the conversation only", async () => {
    await conversation("first", "second");
    await writeFile(file("a.txt"), "v1\n");
    await fx.checkpoints.snapshot({ label: "edit", userMessageId: "m1" });
    await writeFile(file("a.txt"), "v2\n");

    host.picks = [0, 0]; // "second", then "Conversation only"
    await run("/rewind");
    expect(host.asked[1]?.labels).toEqual(["Conversation only", "Cancel"]);
    expect(fx.runtime.calls.rewound).toEqual([{ turnIndex: 2, restoreCheckpoint: undefined }]);
    expect(fx.runtime.session.history.map((t) => t.kind)).toEqual(["user", "assistant"]);
    expect(await readFile(file("a.txt"), "utf8")).toBe("v2\n");
  });

  it("/rewind code only restores the files and keeps the conversation; a second /rewind returns", async () => {
    await conversation("make a.txt say v2");
    await writeFile(file("a.txt"), "v1\n");
    await fx.checkpoints.snapshot({ label: "before edit", userMessageId: "m1" });
    await writeFile(file("a.txt"), "v2\n");
    host.picks = [0, 2];
    host.confirms = [true];
    await run("/rewind");
    expect(await readFile(file("a.txt"), "utf8")).toBe("v1\n");
    expect(fx.runtime.calls.rewound).toEqual([]);
    expect(fx.runtime.session.history).toHaveLength(2);
    expect(host.text()).toContain("Other checkpoints returns the files to the state before");

    host.picks = [1, 0];
    host.confirms = [true];
    await run("/rewind");
    expect(host.asked.at(-2)?.labels).toEqual(['before rewinding to "before edit"']);
    expect(await readFile(file("a.txt"), "utf8")).toBe("v2\n");
  });

  it("/rewind changes nothing when the confirmation is declined, the picker cancelled, or Cancel chosen", async () => {
    await conversation("make a.txt say v2");
    await writeFile(file("a.txt"), "v1\n");
    await fx.checkpoints.snapshot({ label: "before edit", userMessageId: "m1" });
    await writeFile(file("a.txt"), "v2\n");

    host.picks = [0, 0];
    host.confirms = [false];
    await run("/rewind");
    expect(await readFile(file("a.txt"), "utf8")).toBe("v2\n");
    expect(host.shown.at(-1)).toMatchObject({ text: "Rewind cancelled; nothing changed." });

    host.picks = [undefined];
    const before = host.shown.length;
    await run("/rewind");
    host.picks = [0, 3];
    await run("/rewind");
    expect(host.shown.length).toBe(before);
    expect(await readFile(file("a.txt"), "utf8")).toBe("v2\n");
    expect(fx.runtime.calls.rewound).toEqual([]);
    expect(fx.runtime.session.history).toHaveLength(2);
  });

  it("/rewind code only offers the points inside a message that made several changes", async () => {
    await conversation("edit twice");
    await writeFile(file("a.txt"), "v1\n");
    await fx.checkpoints.snapshot({ label: "first edit", userMessageId: "m1" });
    await writeFile(file("a.txt"), "v2\n");
    await fx.checkpoints.snapshot({ label: "second edit", userMessageId: "m1" });
    await writeFile(file("a.txt"), "v3\n");

    host.picks = [0, 2, 1];
    host.confirms = [true];
    await run("/rewind");
    expect(host.asked[2]?.labels).toEqual(["Before the whole message (first edit)", "second edit"]);
    expect(await readFile(file("a.txt"), "utf8")).toBe("v2\n");
  });

  it("/rewind reaches checkpoints of other conversations under Other checkpoints", async () => {
    await conversation("a question");
    await writeFile(file("a.txt"), "v1\n");
    await fx.checkpoints.snapshot({ label: "before edit", userMessageId: "elsewhere" });
    await writeFile(file("a.txt"), "v2\n");
    fx.runtime.messageTexts.set("elsewhere", "an older task");

    host.picks = [1, 0];
    host.confirms = [true];
    await run("/rewind");
    expect(host.asked[0]?.labels).toEqual(["“a question”", "Other checkpoints…"]);
    expect(host.asked[1]?.labels).toEqual(["“an older task”"]);
    expect(await readFile(file("a.txt"), "utf8")).toBe("v1\n");
    expect(fx.runtime.calls.rewound).toEqual([]);
  });

  it("/rewind says so when no message was sent", async () => {
    await run("/rewind");
    expect(host.shown).toEqual([
      { kind: "text", tone: "info", text: "Nothing to rewind yet: no message was sent." },
    ]);
    expect(host.asked).toEqual([]);
  });

  it("/tools lists the profile's tools", async () => {
    await run("/tools");
    const block = host.shown[0];
    if (block?.kind !== "list") throw new Error("no list");
    const names = block.rows.map((r) => r.label);
    expect(names).toEqual(fx.runtime.session.profile.tools().map((t) => t.name));
    expect(names.length).toBeGreaterThan(3);
    expect(block.rows.every((r) => (r.detail ?? "").length > 0)).toBe(true);
  });

  it("/jobs lists the session's background commands and stops one", async () => {
    await run("/jobs");
    expect(host.shown.at(-1)).toMatchObject({ kind: "text", text: expect.stringContaining("No command") });
    const session = fx.runtime.session;
    await session.processes.start(session.environment, "sleep 30");
    await run("/jobs");
    const list = host.shown.at(-1);
    if (list?.kind !== "list") throw new Error("no list");
    expect(list.title).toBe("1 running of 1 started in the background");
    expect(list.rows[0]).toMatchObject({
      label: "bg1",
      detail: expect.stringMatching(/^running \(pid \d+\) · sleep 30$/),
    });
    await run("/jobs stop bg1");
    expect(host.shown.at(-1)).toEqual({ kind: "text", tone: "success", text: "Stopped bg1 (sleep 30)." });
    expect(session.processes.runningCount()).toBe(0);
    await run("/jobs stop bg7");
    expect(host.shown.at(-1)).toMatchObject({
      kind: "text",
      tone: "error",
      text: expect.stringContaining("No background process"),
    });
  });

  it("/mode sets a mode (aliases too), rejects unknown ones, lists them without an argument", async () => {
    await run("/mode yolo");
    expect(fx.runtime.mode).toBe("yolo");
    await run("/mode accept-edits");
    expect(fx.runtime.mode).toBe("auto-edit");
    await run("/mode turbo");
    expect(fx.runtime.mode).toBe("auto-edit");
    expect(host.shown.at(-1)).toMatchObject({ tone: "error" });
    expect(host.text()).toContain('Unknown mode "turbo"');
    await run("/mode");
    expect(host.shown.at(-1)).toMatchObject({ kind: "list", title: "Mode: auto-edit" });
  });

  it("/model switches the model, reports a refused one, offers the provider's models without an argument", async () => {
    await run("/model claude-opus-4-1");
    expect(fx.runtime.calls.models).toEqual(["claude-opus-4-1"]);
    await run("/model no-such-model");
    expect(host.shown.at(-1)).toMatchObject({
      tone: "error",
      text: "/model failed: unknown model no-such-model",
    });
    // Cancelled: nothing changes.
    host.picks.push(undefined);
    await run("/model");
    const offered = host.asked.at(-1)?.labels ?? [];
    expect(offered).toEqual(listModels("anthropic").map((m) => m.id));
    expect(offered).not.toContain(listModels("openai")[0]?.id);
    expect(host.shown.at(-1)).toMatchObject({ text: "Model unchanged: claude-opus-4-1" });
    expect(fx.runtime.calls.models).toEqual(["claude-opus-4-1"]);
    // Picked: the session switches to it.
    const other = offered.findIndex((id) => id !== "claude-opus-4-1");
    host.picks.push(other);
    await run("/model");
    expect(fx.runtime.calls.models).toEqual(["claude-opus-4-1", offered[other]]);
    expect(host.shown.at(-1)).toMatchObject({ tone: "success", text: `Model: ${offered[other]}` });
  });

  it("/cost shows the token counts and the price", async () => {
    fx.runtime.costValue = {
      inputTokens: 12_000,
      outputTokens: 800,
      reasoningTokens: 0,
      cacheReadTokens: 5000,
      cacheWriteTokens: 0,
      totalTokens: 12_800,
      costUsd: 0.0512,
    };
    await run("/cost");
    const text = host.text();
    expect(text).toContain("input 12,000 tokens");
    expect(text).toContain("cache read 5,000 tokens");
    expect(text).toContain("total 12,800 tokens");
    expect(text).toContain("cost $0.0512");
    expect(text).not.toContain("reasoning");
  });

  it("/clear starts a new session and clears the screen without replay", async () => {
    const before = fx.runtime.session.id;
    await run("/clear");
    expect(fx.runtime.calls.cleared).toBe(1);
    expect(fx.runtime.session.id).not.toBe(before);
    expect(host.resets).toEqual([false]);
  });

  it("/resume picks among the other stored sessions and replays the chosen one", async () => {
    const now = new Date().toISOString();
    fx.runtime.sessions = [
      { sessionId: fx.runtime.session.id, path: "", projectDir: fx.project, createdAt: now, updatedAt: now },
      {
        sessionId: "older-1",
        path: "",
        projectDir: fx.project,
        createdAt: now,
        updatedAt: now,
        firstUserMessage: "fix it",
      },
      { sessionId: "older-2", path: "", projectDir: fx.project, createdAt: now, updatedAt: now },
    ];
    host.picks = [1];
    await run("/resume");
    expect(host.asked[0]?.labels).toEqual(["fix it", "(no message yet)"]);
    expect(fx.runtime.calls.resumed).toEqual(["older-2"]);
    expect(host.resets).toEqual([true]);

    await run("/resume older-1");
    expect(fx.runtime.calls.resumed).toEqual(["older-2", "older-1"]);
    await run("/resume older");
    expect(host.shown.at(-1)).toMatchObject({ tone: "error" });
    expect(fx.runtime.calls.resumed).toHaveLength(2);
  });

  it("/compact's line never calls an unchanged history compacted", () => {
    const end = { tokensBefore: 4900, tokensAfter: 4900, prunedToolOutputs: 0, summarized: false };
    expect(compactionLine(end, "Could not summarise the history: nothing older")).toEqual({
      kind: "text",
      tone: "warning",
      text: "Nothing compacted (4.9k tokens in use): nothing older.",
    });
    // Stopped before the summary came: no reason is made up.
    expect(compactionLine(end, undefined)).toMatchObject({ text: "Nothing compacted (4.9k tokens in use)." });
    expect(
      compactionLine(
        { ...end, tokensAfter: 3100, prunedToolOutputs: 2 },
        "Could not summarise the history: 500",
      ),
    ).toEqual({
      kind: "text",
      tone: "warning",
      text: "Compacted partly: 4.9k → 3.1k tokens (2 old tool outputs pruned); could not summarise the earlier turns: 500.",
    });
    expect(compactionLine({ ...end, tokensAfter: 900, summarized: true }, undefined)).toEqual({
      kind: "text",
      tone: "success",
      text: "Compacted the conversation: 4.9k → 900 tokens (earlier turns summarised).",
    });
    expect(compactionLine(undefined, "session closed")).toMatchObject({
      tone: "error",
      text: "Could not compact the conversation: session closed",
    });
  });

  it("/compact passes the focus on, or none", async () => {
    await run("/compact keep the schema decisions");
    await run("/compact");
    expect(fx.runtime.calls.compacted).toEqual(["keep the schema decisions", undefined]);
  });

  it("/exit and /quit leave", async () => {
    await run("/exit");
    await run("/quit");
    expect(host.exited).toBe(2);
  });

  it("refuses file-changing commands while a turn runs and explains unknown ones", async () => {
    await writeFile(file("a.txt"), "one\n");
    await fx.checkpoints.snapshot({ label: "x" });
    await writeFile(file("a.txt"), "two\n");
    await run("/undo", true);
    expect(await readFile(file("a.txt"), "utf8")).toBe("two\n");
    expect(host.shown.at(-1)).toMatchObject({ tone: "warning" });

    await run("/mode plan", true);
    expect(fx.runtime.mode).toBe("plan");

    await run("/un");
    expect(host.shown.at(-1)).toMatchObject({
      tone: "error",
      text: "Unknown command /un. Did you mean /undo? /help lists them.",
    });
  });
});
