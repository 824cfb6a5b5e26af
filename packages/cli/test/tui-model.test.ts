import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDiff } from "../src/tui/components/diff-view.js";
import {
  backspace,
  deleteForward,
  deleteWordBefore,
  EMPTY_EDITOR,
  editorWith,
  insert,
  killToLineEnd,
  moveHorizontal,
  moveVertical,
} from "../src/tui/input/editor.js";
import { InputHistory } from "../src/tui/input/history.js";
import type { ToolCallView } from "../src/tui/transcript/items.js";
import {
  blockBoundary,
  initialTranscript,
  reduceTranscript,
  type TranscriptAction,
  type TranscriptState,
} from "../src/tui/transcript/model.js";
import { replayHistory } from "../src/tui/transcript/replay.js";
import { summarizeToolCall } from "../src/tui/transcript/tool-summary.js";
import { sessionEvent } from "./tui-support.js";

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const replay = (actions: TranscriptAction[], from: TranscriptState = initialTranscript()) =>
  actions.reduce(reduceTranscript, from);
const ev = (event: ReturnType<typeof sessionEvent>): TranscriptAction => ({ type: "event", event });

describe("streamed Markdown boundaries", () => {
  it("cuts after the last finished paragraph, never inside a code fence or on the growing line", () => {
    expect(blockBoundary("first para\n\nsecond")).toBe("first para\n\n".length);
    expect(blockBoundary("one line only")).toBe(0);
    expect(blockBoundary("```js\nconst a = 1;\n\nconst b = 2;\n")).toBe(0);
    const closed = "```js\nconst a = 1;\n\n```\n\nafter";
    expect(blockBoundary(closed)).toBe(closed.indexOf("after"));
    expect(blockBoundary("para\n")).toBe(0);
  });
});

describe("transcript reducer", () => {
  it("keeps the partial answer, marked as cut, when the stream broke and the turn is asked again", () => {
    const s = replay([
      ev(sessionEvent("assistant_text_start", { model: "m" })),
      ev(sessionEvent("assistant_text_delta", { delta: "A half-written", channel: "text" })),
      ev(
        sessionEvent("retry", {
          attempt: 1,
          maxRetries: 2,
          delayMs: 900,
          message: "the stream was cut",
          errorName: "StreamError",
          discardPartial: true,
        }),
      ),
      ev(sessionEvent("assistant_text_start", { model: "m" })),
      ev(sessionEvent("assistant_text_delta", { delta: "The whole answer.", channel: "text" })),
      ev(
        sessionEvent("assistant_text_end", {
          text: "The whole answer.",
          toolCalls: [],
          finishReason: "stop",
          usage,
        }),
      ),
    ]);
    const texts = s.items.map((i) => ("text" in i ? i.text : ""));
    expect(texts).toContain("A half-written");
    expect(texts.some((t) => /cut off \(the stream was cut\)/.test(t))).toBe(true);
    expect(texts).toContain("The whole answer.");
    // The retry itself is the countdown's line, not a notice.
    expect(texts.join("|")).not.toMatch(/retrying \(/);
  });

  it("keeps what was streamed before a failure and gives the unanswered message back", () => {
    const s = replay([
      ev(sessionEvent("user_input", { content: "explain the build", followUp: false })),
      ev(sessionEvent("assistant_text_start", { model: "m" })),
      ev(sessionEvent("assistant_text_delta", { delta: "The build starts with", channel: "text" })),
      ev(sessionEvent("error", { errorName: "StreamError", message: "connection reset" })),
    ]);
    const texts = s.items.map((i) => ("text" in i ? i.text : ""));
    expect(texts).toContain("The build starts with");
    expect(texts.some((t) => /^cut off/.test(t))).toBe(true);
    expect(texts.some((t) => t.startsWith("StreamError: connection reset"))).toBe(true);
    expect(s.inputFills.at(-1)?.text).toBe("explain the build");
  });

  it("commits finished paragraphs while streaming and the rest at the end", () => {
    let s = replay([
      ev(sessionEvent("user_input", { content: "hi", followUp: false })),
      ev(sessionEvent("assistant_text_start", { model: "m" })),
      ev(sessionEvent("assistant_text_delta", { delta: "Hello **there**.\n", channel: "text" })),
    ]);
    expect(s.busy).toBe(true);
    expect(s.items.map((i) => i.kind)).toEqual(["user"]);
    expect(s.streaming?.text).toBe("Hello **there**.\n");

    s = replay([ev(sessionEvent("assistant_text_delta", { delta: "\nSecond par", channel: "text" }))], s);
    expect(s.items.at(-1)).toMatchObject({ kind: "assistant", text: "Hello **there**.", first: true });
    expect(s.streaming?.text).toBe("Second par");

    s = replay(
      [
        ev(sessionEvent("assistant_text_delta", { delta: "agraph.", channel: "text" })),
        ev(
          sessionEvent("assistant_text_end", {
            text: "Hello **there**.\n\nSecond paragraph.",
            toolCalls: [],
            finishReason: "stop",
            usage,
          }),
        ),
      ],
      s,
    );
    expect(s.streaming).toBeUndefined();
    expect(s.items.at(-1)).toMatchObject({ kind: "assistant", text: "Second paragraph.", first: false });
  });

  it("keeps reasoning apart and uses the end event's text when nothing was streamed", () => {
    const s = replay([
      ev(sessionEvent("assistant_text_start", { model: "m" })),
      ev(sessionEvent("assistant_text_delta", { delta: "Let me think.", channel: "reasoning" })),
      ev(sessionEvent("assistant_text_end", { text: "Done.", toolCalls: [], finishReason: "stop", usage })),
    ]);
    expect(s.items.map((i) => [i.kind, "text" in i ? i.text : ""])).toEqual([
      ["reasoning", "Let me think."],
      ["assistant", "Done."],
    ]);
  });

  it("follows a tool call from start through output to its finished block", () => {
    let s = replay([
      ev(
        sessionEvent("tool_call_start", {
          toolName: "shell",
          callId: "c1",
          arguments: { command: "npm test" },
        }),
      ),
      ev(
        sessionEvent("tool_call_output_delta", {
          toolName: "shell",
          callId: "c1",
          delta: "running 3 tests\n",
        }),
      ),
    ]);
    expect(s.running).toHaveLength(1);
    expect(s.running[0]?.output).toBe("running 3 tests\n");
    expect(s.items).toHaveLength(0);

    s = replay(
      [
        ev(
          sessionEvent("tool_call_end", {
            toolName: "shell",
            callId: "c1",
            output: "running 3 tests\nok\nExit code: 0\nDuration: 120 ms",
            isError: false,
            truncated: false,
            details: { exitCode: 0, durationMs: 120 },
            durationMs: 125,
          }),
        ),
      ],
      s,
    );
    expect(s.running).toHaveLength(0);
    const item = s.items[0];
    expect(item?.kind).toBe("tool");
    if (item?.kind !== "tool") return;
    expect(item.call.arguments).toEqual({ command: "npm test" });
    expect(summarizeToolCall(item.call)).toMatchObject({
      label: "Shell",
      target: "npm test",
      line: "exit 0 · 120 ms",
      body: ["running 3 tests", "ok"],
      hiddenLines: 0,
    });
  });

  it("an interrupted cycle commits the partial answer and marks unfinished calls", () => {
    const s = replay([
      ev(sessionEvent("assistant_text_start", { model: "m" })),
      ev(sessionEvent("assistant_text_delta", { delta: "Partial", channel: "text" })),
      ev(
        sessionEvent("tool_call_start", {
          toolName: "shell",
          callId: "c9",
          arguments: { command: "sleep 100" },
        }),
      ),
      ev(
        sessionEvent("processing_end", {
          state: "idle" as never,
          reason: "aborted",
          toolRounds: 1,
          usage,
        }),
      ),
    ]);
    expect(s.busy).toBe(false);
    expect(s.running).toEqual([]);
    expect(s.streaming).toBeUndefined();
    expect(s.items.map((i) => i.kind)).toEqual(["assistant", "tool", "notice"]);
    const tool = s.items[1];
    if (tool?.kind === "tool") expect(summarizeToolCall(tool.call).line).toBe("interrupted");
    expect(s.items[2]).toMatchObject({ tone: "warning", text: "Interrupted." });
  });

  it("shows an automatic compaction as an activity, then its figures; never 'compacted' for nothing", () => {
    let s = replay([ev(sessionEvent("compaction_start", { reason: "threshold", tokensBefore: 120_000 }))]);
    expect(s.activity).toBe("Compacting the conversation");
    s = replay(
      [
        ev(
          sessionEvent("compaction_end", {
            tokensBefore: 120_000,
            tokensAfter: 30_500,
            prunedToolOutputs: 4,
            summarized: true,
          }),
        ),
      ],
      s,
    );
    expect(s.activity).toBeUndefined();
    expect(s.items.at(-1)).toMatchObject({
      text: "Compacted the conversation: 120k → 30.5k tokens, 4 old tool outputs pruned, earlier turns summarised",
    });
    s = replay(
      [
        ev(sessionEvent("compaction_start", { reason: "threshold", tokensBefore: 4900 })),
        ev(
          sessionEvent("compaction_end", {
            tokensBefore: 4900,
            tokensAfter: 4900,
            prunedToolOutputs: 0,
            summarized: false,
          }),
        ),
      ],
      s,
    );
    expect(s.items.at(-1)).toMatchObject({
      tone: "warning",
      text: "Compaction shrank nothing (4.9k tokens in use).",
    });
  });

  it("leaves a /compact's outcome to the command's one line (no notice, no warning of its own)", () => {
    const s = replay([
      ev(sessionEvent("compaction_start", { reason: "manual", tokensBefore: 4900 })),
      ev(
        sessionEvent("compaction_end", {
          tokensBefore: 4900,
          tokensAfter: 4900,
          prunedToolOutputs: 0,
          summarized: false,
        }),
      ),
      ev(
        sessionEvent("warning", {
          code: "compaction",
          message: "Could not summarise the history: nothing older",
        }),
      ),
    ]);
    expect(s.activity).toBeUndefined();
    expect(s.items).toEqual([]);
  });

  it("queues messages sent while busy until the session takes them up; a failed send says why", () => {
    let s = replay([
      { type: "submitted", text: "first", whileBusy: false },
      { type: "submitted", text: "second", whileBusy: true },
    ]);
    expect(s.busy).toBe(true);
    expect(s.queued).toEqual(["second"]);
    s = replay([ev(sessionEvent("user_input", { content: "second", followUp: true }))], s);
    expect(s.queued).toEqual([]);
    s = replay([{ type: "failed", message: "Could not send: closed" }], s);
    expect(s.busy).toBe(false);
    expect(s.items.at(-1)).toMatchObject({ tone: "error", text: "Could not send: closed" });
  });

  it("tracks pending steering, and gives text back to the input across a screen reset", () => {
    let s = replay([
      { type: "submitted", text: "task", whileBusy: false },
      { type: "event", event: { kind: "steering_pending", messages: ["use yarn"] } },
      { type: "submitted", text: "then test", whileBusy: true },
    ]);
    expect(s.steering).toEqual(["use yarn"]);
    expect(s.queued).toEqual(["then test"]);
    s = replay(
      [
        ev(
          sessionEvent("processing_end", { state: "idle" as never, reason: "aborted", toolRounds: 0, usage }),
        ),
        { type: "event", event: { kind: "steering_pending", messages: [] } },
        { type: "event", event: { kind: "steering_dropped", messages: ["use yarn"] } },
      ],
      s,
    );
    expect(s.queued).toEqual([]);
    expect(s.steering).toEqual([]);
    expect(s.inputFills.map((f) => f.text)).toEqual(["then test", "use yarn"]);

    s = replay(
      [
        { type: "event", event: { kind: "conversation_rewound", text: "task", keptTurns: 0 } },
        { type: "reset" },
      ],
      s,
    );
    expect(s.items).toEqual([]);
    expect(s.inputFills.at(-1)?.text).toBe("task");
    const ids = s.inputFills.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("takes todos and runtime warnings from notices; mode changes stay in the status line", () => {
    const todos = [{ id: "1", content: "write tests", status: "in_progress" as const }];
    const s = replay([
      { type: "event", event: { kind: "todos_changed", todos } },
      { type: "event", event: { kind: "mode_changed", mode: "yolo" } },
      { type: "event", event: { kind: "warning", message: "settings: unknown key" } },
      ev(sessionEvent("warning", { code: "context_usage", message: "context 85% full" })),
    ]);
    expect(s.todos).toEqual(todos);
    expect(s.items.map((i) => ("text" in i ? i.text : i.kind))).toEqual([
      "settings: unknown key",
      "context 85% full",
    ]);
  });
});

describe("tool summaries", () => {
  const done = (
    toolName: string,
    args: Record<string, unknown>,
    output: string,
    details = {},
    isError = false,
  ) =>
    ({
      callId: "c",
      toolName,
      arguments: args,
      output,
      result: { isError, details, durationMs: 1500, outputLines: output.split("\n").length },
    }) satisfies ToolCallView;

  it("says what each tool did", () => {
    expect(
      summarizeToolCall(
        done("read_file", { file_path: "src/a.ts", offset: 10, limit: 5 }, "…", { linesRead: 5 }),
      ),
    ).toMatchObject({ label: "Read", target: "src/a.ts:10-14", line: "Read 5 lines" });
    expect(
      summarizeToolCall(done("grep", { pattern: "TODO", path: "src" }, "", { matchCount: 7, fileCount: 3 })),
    ).toMatchObject({ label: "Search", target: "TODO in src", line: "7 matches in 3 files" });
    expect(summarizeToolCall(done("glob", { pattern: "**/*.ts" }, "", { fileCount: 1 }))).toMatchObject({
      line: "Found 1 file",
    });
    const diff = "--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n";
    expect(summarizeToolCall(done("edit_file", { file_path: "x.ts" }, "ok", { diff }))).toMatchObject({
      label: "Edit",
      line: "+2 −1",
      diff,
    });
  });

  it("shows a shell command's exit code and first lines, counting the hidden rest", () => {
    const output = `${Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n")}\nExit code: 2\nDuration: 1500 ms`;
    const s = summarizeToolCall(done("shell", { command: "make" }, output, { exitCode: 2 }, true));
    expect(s.line).toBe("exit 2 · 1.5 s");
    expect(s.body).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5"]);
    expect(s.hiddenLines).toBe(7);
    expect(
      summarizeToolCall(done("shell", { command: "sleep 9" }, "", { timedOut: true, exitCode: null })).line,
    ).toBe("timed out · 1.5 s");
  });

  it("shows the error of a failed call", () => {
    const s = summarizeToolCall(done("edit_file", { file_path: "x" }, "old_string not found in x", {}, true));
    expect(s).toMatchObject({ line: "failed", body: ["old_string not found in x"] });
  });
});

describe("diff parsing", () => {
  it("numbers lines from the hunk header and keeps '--- ' content lines inside a hunk", () => {
    const lines = parseDiff(
      "--- a/f.md\n+++ b/f.md\n@@ -10,3 +10,3 @@\n keep\n--- old rule\n+++ new rule\n end\n",
    );
    expect(lines).toEqual([
      { kind: "file", text: "f.md" },
      { kind: "hunk", text: "@@ -10,3 +10,3 @@" },
      { kind: "context", text: "keep", number: 10 },
      { kind: "remove", text: "-- old rule", number: 11 },
      { kind: "add", text: "++ new rule", number: 11 },
      { kind: "context", text: "end", number: 12 },
    ]);
  });

  it("reads v4a patches' file lines as headers", () => {
    const lines = parseDiff(
      "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch",
    );
    expect(lines.map((l) => l.kind)).toEqual(["file", "hunk", "remove", "add"]);
    expect(lines[0]?.text).toBe("Update File: a.py");
  });
});

describe("input editor", () => {
  it("edits like a shell line and moves between lines", () => {
    let s = insert(EMPTY_EDITOR, "hello world");
    s = deleteWordBefore(s);
    expect(s).toEqual({ text: "hello ", cursor: 6 });
    s = insert(s, "there\r\nsecond");
    expect(s.text).toBe("hello there\nsecond");
    const up = moveVertical(s, -1);
    expect(up?.cursor).toBe(6);
    expect(moveVertical(up ?? s, -1)).toBeUndefined();
    expect(moveVertical(s, 1)).toBeUndefined();
    expect(killToLineEnd({ ...s, cursor: 5 }).text).toBe("hello\nsecond");
    expect(backspace(moveHorizontal(editorWith("a😀b"), -1)).text).toBe("ab");
  });

  it("deletes and moves over whole grapheme clusters", () => {
    // A family (five code points joined), a toned thumb, a letter with a combining accent, a flag.
    for (const cluster of ["👨‍👩‍👧", "👍🏽", "e\u0301", "🇫🇷"]) {
      expect(backspace(editorWith(`x${cluster}`))).toEqual({ text: "x", cursor: 1 });
      expect(deleteForward({ text: `${cluster}y`, cursor: 0 }).text).toBe("y");
      expect(moveHorizontal(editorWith(`x${cluster}`), -1).cursor).toBe(1);
      expect(moveHorizontal({ text: `${cluster}y`, cursor: 0 }, 1).cursor).toBe(cluster.length);
    }
    expect(backspace(editorWith("日本語")).text).toBe("日本");
  });
});

describe("input history", () => {
  it("browses older entries from the draft and back, and persists across instances", async () => {
    const dir = await mkdtemp(join(tmpdir(), "attractor-history-"));
    try {
      const file = join(dir, "h.jsonl");
      const h = new InputHistory(file);
      h.push("first");
      h.push("second\nline");
      h.push("second\nline");
      expect(h.previous("draft")).toBe("second\nline");
      expect(h.previous("")).toBe("first");
      expect(h.previous("")).toBeUndefined();
      expect(h.next()).toBe("second\nline");
      expect(h.next()).toBe("draft");
      expect(h.next()).toBeUndefined();
      expect(new InputHistory(file).all()).toEqual(["first", "second\nline"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("resume replay", () => {
  it("turns stored turns into user, answer and tool items", () => {
    const ts = new Date().toISOString();
    const items = replayHistory([
      { kind: "user", content: "read a", timestamp: ts },
      {
        kind: "assistant",
        content: "Reading.",
        toolCalls: [{ id: "t1", name: "read_file", arguments: { file_path: "a" } }],
        parts: [],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        timestamp: ts,
      },
      {
        kind: "tool_results",
        results: [{ toolCallId: "t1", toolName: "read_file", content: "1\tx", isError: false }],
        timestamp: ts,
      },
    ]);
    expect(items.map((i) => i.kind)).toEqual(["user", "assistant", "tool"]);
    const tool = items[2];
    if (tool?.kind === "tool") expect(summarizeToolCall({ ...tool.call }).target).toBe("a");
  });

  it("shows a resumed edit with the diff the tool made, not one worked out from its arguments", () => {
    const ts = new Date().toISOString();
    const diff = "--- a/m.go\n+++ b/m.go\n@@ -1,1 +1,1 @@\n-\trun()\n+\tstart()\n";
    const items = replayHistory([
      {
        kind: "assistant",
        content: "",
        toolCalls: [
          {
            id: "e1",
            name: "edit_file",
            arguments: { file_path: "m.go", old_string: "    run()", new_string: "    start()" },
          },
        ],
        parts: [],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        timestamp: ts,
      },
      {
        kind: "tool_results",
        results: [
          {
            toolCallId: "e1",
            toolName: "edit_file",
            content: `Edited m.go: 1 replacement at line 1 (matched with tabs and spaces converted to the file's indentation).\n${diff}`,
            isError: false,
          },
        ],
        timestamp: ts,
      },
    ]);
    const tool = items.find((i) => i.kind === "tool");
    expect(tool?.kind === "tool" && tool.call.result?.details?.diff).toBe(diff);
  });
});
