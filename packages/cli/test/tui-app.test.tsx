import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createPermissionPolicy } from "@attractor/runtime/permissions";
import { render } from "ink-testing-library";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/tui/app.js";
import { createInteractiveUi, DISMISSED_ANSWER, type InteractiveUi } from "../src/tui/bridge.js";
import { InputHistory } from "../src/tui/input/history.js";
import { createFakeRuntime, type FakeRuntimeFixture, sessionEvent } from "./tui-support.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped
const plain = (frame: string | undefined) => (frame ?? "").replace(/\x1b\[[0-9;]*m/g, "");
const KEYS = {
  enter: "\r",
  esc: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  pageDown: "\x1b[6~",
  shiftTab: "\x1b[Z",
  ctrlC: "\x03",
  ctrlO: "\x0f",
};
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

let fx: FakeRuntimeFixture;
let ui: InteractiveUi;
let exits: number[];
let app: ReturnType<typeof render>;

/** Writes keys one chunk at a time, letting Ink handle each before the next. */
async function press(...chunks: string[]) {
  for (const chunk of chunks) {
    app.stdin.write(chunk);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  }
}

/** Types text then Enter as separate chunks, as a person would. */
const typeLine = (text: string) => press(text, KEYS.enter);
const frame = () => plain(app.lastFrame());
// Commands that run git (checkpoints) take their time on a busy machine.
const see = (text: string | RegExp) =>
  vi.waitFor(
    () => (typeof text === "string" ? expect(frame()).toContain(text) : expect(frame()).toMatch(text)),
    { timeout: 15_000 },
  );

beforeEach(async () => {
  fx = await createFakeRuntime();
  ui = createInteractiveUi();
  exits = [];
  app = render(
    <App runtime={fx.runtime} ui={ui} onExit={(code) => exits.push(code)} history={new InputHistory()} />,
  );
  await see("Ask anything");
});

afterEach(async () => {
  app.unmount();
  await fx.cleanup();
});

describe("the interactive app", () => {
  it("sends typed input, shows the streamed answer and a tool block, and finished items stay", async () => {
    await typeLine("explain the build");
    expect(fx.runtime.calls.submitted).toEqual(["explain the build"]);
    fx.runtime.emit(sessionEvent("user_input", { content: "explain the build", followUp: false }));
    fx.runtime.emit(sessionEvent("assistant_text_start", { model: "m" }));
    fx.runtime.emit(
      sessionEvent("assistant_text_delta", { delta: "The build uses **tsc**", channel: "text" }),
    );
    await see("The build uses tsc");
    await see("Working");
    fx.runtime.emit(sessionEvent("assistant_text_delta", { delta: ".\n\nThen it runs", channel: "text" }));
    await see("Then it runs");
    fx.runtime.emit(
      sessionEvent("assistant_text_end", {
        text: "The build uses **tsc**.\n\nThen it runs",
        toolCalls: [{ id: "c1", name: "read_file" }],
        finishReason: "tool_calls",
        usage,
      }),
    );
    fx.runtime.emit(
      sessionEvent("tool_call_start", {
        toolName: "read_file",
        callId: "c1",
        arguments: { file_path: "package.json" },
      }),
    );
    await see(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Read package\.json/);
    fx.runtime.emit(
      sessionEvent("tool_call_end", {
        toolName: "read_file",
        callId: "c1",
        output: "1\t{}",
        isError: false,
        truncated: false,
        details: { linesRead: 42 },
        durationMs: 4,
      }),
    );
    await see("Read 42 lines");
    fx.runtime.emit(
      sessionEvent("processing_end", { state: "idle" as never, reason: "completed", toolRounds: 1, usage }),
    );
    await vi.waitFor(() => expect(frame()).not.toContain("Working"));
    const f = frame();
    expect(f.indexOf("› explain the build")).toBeLessThan(f.indexOf("The build uses tsc."));
    expect(f.indexOf("The build uses tsc.")).toBeLessThan(f.indexOf("Then it runs"));
    expect(f.indexOf("Then it runs")).toBeLessThan(f.indexOf("● Read package.json"));
  });

  it("answers a permission prompt for an edit through the bridge, showing the diff", async () => {
    await writeFile(join(fx.project, "a.txt"), "alpha\nbeta\n");
    const policy = createPermissionPolicy({ mode: "normal", projectRoot: fx.project, ask: ui.askPermission });
    const decision = policy.check({
      callId: "e1",
      toolName: "edit_file",
      arguments: { file_path: "a.txt", old_string: "beta", new_string: "gamma" },
    });
    await see("Change files?");
    expect(frame()).toContain("edit_file a.txt");
    expect(frame()).toMatch(/2 - beta/);
    expect(frame()).toMatch(/2 \+ gamma/);
    expect(frame()).toContain("Always allow this session");
    expect(frame()).not.toContain("Ask anything");
    await press("y");
    await expect(decision).resolves.toMatchObject({ behavior: "allow", reason: "allowed once by the user" });
    await vi.waitFor(() => expect(frame()).not.toContain("Change files?"));
    await see("Ask anything");
  });

  it("says a write of what the file already holds changes nothing (no blank gap for a diff)", async () => {
    await writeFile(join(fx.project, "same.txt"), "kept\n");
    const policy = createPermissionPolicy({ mode: "normal", projectRoot: fx.project, ask: ui.askPermission });
    const decision = policy.check({
      callId: "w1",
      toolName: "write_file",
      arguments: { file_path: "same.txt", content: "kept\n" },
    });
    await see("Change files?");
    expect(frame()).toContain("(no change: the file already has this content)");
    await press("n");
    await expect(decision).resolves.toMatchObject({ behavior: "deny" });
    await vi.waitFor(() => expect(frame()).not.toContain("Change files?"));
  });

  it("queues prompts, remembers 'always', and Esc aborts the run", async () => {
    const policy = createPermissionPolicy({ mode: "normal", projectRoot: fx.project, ask: ui.askPermission });
    const first = policy.check({
      callId: "s1",
      toolName: "shell",
      arguments: { command: "npm install left-pad" },
    });
    const second = policy.check({ callId: "s2", toolName: "shell", arguments: { command: "touch x" } });
    await see("Run a command?");
    expect(frame()).toContain("$ npm install left-pad");
    expect(frame()).toContain("(+1 waiting)");
    await press("a");
    await expect(first).resolves.toMatchObject({ behavior: "allow" });
    expect(policy.grants()).toEqual(["shell(npm install:*)"]);
    await see("$ touch x");
    await press(KEYS.esc);
    await expect(second).resolves.toMatchObject({ behavior: "deny", aborted: true });
    await vi.waitFor(() => expect(fx.runtime.calls.interrupts).toBeGreaterThan(0));
  });

  it("offers 'always' for a loop's real commands only, and none for a line it cannot judge", async () => {
    const policy = createPermissionPolicy({ mode: "normal", projectRoot: fx.project, ask: ui.askPermission });
    const loop = policy.check({
      callId: "l1",
      toolName: "shell",
      arguments: { command: "for i in 1 2; do touch f$i; done" },
    });
    await see("Run a command?");
    expect(frame()).toContain("Always allow this session");
    expect(frame()).toContain("shell(touch f1 f2)");
    for (const keyword of ["shell(for", "shell(do", "shell(done"]) expect(frame()).not.toContain(keyword);
    await press("a");
    await expect(loop).resolves.toMatchObject({ behavior: "allow" });
    expect(policy.grants()).toEqual(["shell(touch f1 f2)"]);

    const dynamic = policy.check({
      callId: "l2",
      toolName: "shell",
      arguments: { command: "$TOOL -rf build" },
    });
    await see("$ $TOOL -rf build");
    expect(frame()).not.toContain("Always allow this session");
    await press("n");
    await expect(dynamic).resolves.toMatchObject({ behavior: "deny" });
  });

  it("denies with n", async () => {
    const answer = ui.askPermission({
      call: { callId: "w", toolName: "write_file", arguments: { file_path: "new.txt", content: "hi\n" } },
      kind: "edit",
      reason: "file edits ask in normal mode",
      paths: ["new.txt"],
      canAllowAlways: true,
      alwaysRules: ["write_file(new.txt)"],
    });
    await see("+ hi");
    await press("n");
    await expect(answer).resolves.toBe("deny");
  });

  it("ctrl+o scrolls a long diff in a permission prompt; the answers wait meanwhile", async () => {
    const content = `${Array.from({ length: 80 }, (_, i) => `row ${i + 1}`).join("\n")}\n`;
    const answer = ui.askPermission({
      call: { callId: "long", toolName: "write_file", arguments: { file_path: "long.txt", content } },
      kind: "edit",
      reason: "file edits ask in normal mode",
      paths: ["long.txt"],
      canAllowAlways: true,
      alwaysRules: ["write_file(long.txt)"],
    });
    await see("ctrl+o to scroll the whole diff");
    expect(frame()).not.toContain("+ row 80");
    // The hidden count is exact: every added row is either shown or counted.
    const shown = frame().match(/\+ row \d+/g)?.length ?? 0;
    const hidden = Number(/… (\d+) more diff lines/.exec(frame())?.[1]);
    expect(shown + hidden).toBe(80);
    await press(KEYS.ctrlO);
    await see("ctrl+o back to the answers");
    await press(KEYS.down, KEYS.down, KEYS.down);
    await see("↑ 3 diff lines above");
    // While scrolling, y is not an answer.
    await press("y");
    for (let i = 0; i < 10; i++) await press(KEYS.pageDown);
    await see("+ row 80");
    expect(frame()).not.toContain("more diff lines");
    await press(KEYS.ctrlO);
    await see("ctrl+o to scroll the whole diff");
    await press("n");
    await expect(answer).resolves.toBe("deny");
  });

  it("shows ask_user options as a selection and takes free text", async () => {
    const picked = ui.askUser({ question: "Which database?", options: ["postgres", "sqlite"] });
    await see("Which database?");
    expect(frame()).toContain("1. postgres");
    expect(frame()).toContain("3. Type an answer…");
    await press(KEYS.down, KEYS.enter);
    await expect(picked).resolves.toBe("sqlite");

    const typed = ui.askUser({ question: "Name of the table?" });
    await see("Name of the table?");
    await typeLine("users");
    await expect(typed).resolves.toBe("users");

    const dismissed = ui.askUser({ question: "Anything else?", options: ["no"] });
    await see("Anything else?");
    await press(KEYS.esc);
    await expect(dismissed).resolves.toBe(DISMISSED_ANSWER);
  });

  it("recalls history with ↑ and continues a line with a trailing backslash", async () => {
    await typeLine("first task");
    await press(KEYS.up);
    await see("› first task");
    await press(KEYS.down);
    await see("Ask anything");
    await press("line one\\", KEYS.enter, "line two", KEYS.enter);
    expect(fx.runtime.calls.submitted).toEqual(["first task", "line one\nline two"]);
  });

  it("runs slash commands: /mode changes the status line, /undo restores the file", async () => {
    await typeLine("/mode yolo");
    await see("Mode: yolo");
    expect(fx.runtime.mode).toBe("yolo");
    expect(frame()).toMatch(/claude-sonnet-4-5 · yolo/);

    await writeFile(join(fx.project, "a.txt"), "before\n");
    await fx.checkpoints.snapshot({ label: "before edit", userMessageId: "u1" });
    await writeFile(join(fx.project, "a.txt"), "after\n");
    await typeLine("/undo");
    await see("Undid the last change: a.txt");
    expect(await readFile(join(fx.project, "a.txt"), "utf8")).toBe("before\n");
  });

  it("/rewind picks a message, offers code and conversation, restores both and gives the text back", async () => {
    app.unmount();
    await fx.cleanup();
    const ts = new Date().toISOString();
    fx = await createFakeRuntime({
      history: [
        { kind: "user", content: "make a.txt say v2", timestamp: ts },
        { kind: "assistant", content: "Done.", toolCalls: [], parts: [], usage, timestamp: ts },
      ],
    });
    fx.runtime.entryIds = ["m1", "a1"];
    app = render(<App runtime={fx.runtime} ui={ui} onExit={() => undefined} history={new InputHistory()} />);
    await see("Ask anything");
    await writeFile(join(fx.project, "a.txt"), "v1\n");
    await fx.checkpoints.snapshot({ label: "before edit_file a.txt", userMessageId: "m1" });
    await writeFile(join(fx.project, "a.txt"), "v2\n");

    await typeLine("/rewind");
    await see("Rewind to before which message?");
    expect(frame()).toContain("“make a.txt say v2”");
    expect(frame()).toContain("1 file change since");
    await press(KEYS.enter);
    await see("Restore what?");
    expect(frame()).toContain("Code and conversation");
    expect(frame()).toContain("Conversation only");
    expect(frame()).toContain("Code only");
    await press(KEYS.enter);
    await see("Restore 1 file and rewind the conversation?");
    expect(frame()).toContain("revert  a.txt");
    expect(frame()).toMatch(/\+ v1/);
    await press("y");
    await see("Rewound the conversation");
    expect(await readFile(join(fx.project, "a.txt"), "utf8")).toBe("v1\n");
    expect(fx.runtime.session.history).toEqual([]);
    // The message is back in the input, to edit and send again.
    await see("› make a.txt say v2");
    await press(" please", KEYS.enter);
    expect(fx.runtime.calls.submitted).toEqual(["make a.txt say v2 please"]);
  });

  it("/rewind of the conversation only leaves the files and puts the text back", async () => {
    app.unmount();
    await fx.cleanup();
    const ts = new Date().toISOString();
    fx = await createFakeRuntime({
      history: [
        { kind: "user", content: "first question", timestamp: ts },
        { kind: "assistant", content: "One.", toolCalls: [], parts: [], usage, timestamp: ts },
        { kind: "user", content: "second question", timestamp: ts },
        { kind: "assistant", content: "Two.", toolCalls: [], parts: [], usage, timestamp: ts },
      ],
    });
    app = render(<App runtime={fx.runtime} ui={ui} onExit={() => undefined} history={new InputHistory()} />);
    await see("Ask anything");
    await typeLine("/rewind");
    await see("Rewind to before which message?");
    await press(KEYS.enter); // the newest message
    await see("Restore what?");
    expect(frame()).not.toContain("Code only");
    await press(KEYS.enter); // "Conversation only"
    await see("Rewound the conversation");
    expect(fx.runtime.calls.rewound).toEqual([{ turnIndex: 2, restoreCheckpoint: undefined }]);
    // The replayed transcript ends before the message; the message waits in the input.
    await see(/One\.\s*\n[\s\S]*Rewound the conversation[\s\S]*› second question/);
    expect(fx.runtime.session.history.map((t) => t.kind)).toEqual(["user", "assistant"]);
  });

  it("Enter while the agent works steers it; Tab queues a message for after the turn", async () => {
    fx.runtime.holdSubmits = true;
    await typeLine("long task");
    fx.runtime.emit(sessionEvent("user_input", { content: "long task", followUp: false }));
    await see("Enter steers the agent now");
    await typeLine("use yarn, not npm");
    expect(fx.runtime.calls.steered).toEqual(["use yarn, not npm"]);
    expect(fx.runtime.calls.submitted).toEqual(["long task"]);
    await see("steering: use yarn, not npm");

    await press("then run the tests", "\t");
    expect(fx.runtime.calls.submitted).toEqual(["long task", "then run the tests"]);
    expect(fx.runtime.calls.steered).toEqual(["use yarn, not npm"]);
    await see("queued: then run the tests");

    // The runtime injects the steering at the next tool-round boundary.
    fx.runtime.emit({ kind: "steering_pending", messages: [] });
    fx.runtime.emit(sessionEvent("steering_injected", { content: "use yarn, not npm", source: "host" }));
    await see("Steering: use yarn, not npm");
    expect(frame()).not.toContain("steering: use yarn");
    fx.runtime.emit(sessionEvent("user_input", { content: "then run the tests", followUp: true }));
    await vi.waitFor(() => expect(frame()).not.toContain("queued: then run the tests"));

    // Slash commands typed while busy keep their behaviour.
    await typeLine("/undo");
    await see("/undo cannot run while the agent is working");
    expect(fx.runtime.calls.steered).toHaveLength(1);
  });

  it("an interrupt gives steering and queued messages back to the input", async () => {
    fx.runtime.holdSubmits = true;
    await typeLine("long task");
    fx.runtime.emit(sessionEvent("user_input", { content: "long task", followUp: false }));
    await see("Enter steers the agent now");
    await press("queued one", "\t");
    await see("queued: queued one");
    fx.runtime.emit(
      sessionEvent("processing_end", { state: "idle" as never, reason: "aborted", toolRounds: 0, usage }),
    );
    fx.runtime.emit({ kind: "steering_dropped", messages: ["steer one"] });
    await see("Interrupted.");
    await see(/› queued one[^\n]*\n[^\n]*steer one/);
  });

  it("Shift+Tab cycles the mode; Esc and Ctrl+C interrupt a running turn; Ctrl+C clears a draft, twice on an empty input exits", async () => {
    await press(KEYS.shiftTab);
    await see("· auto-edit ·");
    await press(KEYS.shiftTab);
    await see("· plan ·");
    expect(fx.runtime.calls.modes).toEqual(["auto-edit", "plan"]);

    await typeLine("long task");
    fx.runtime.emit(sessionEvent("user_input", { content: "long task", followUp: false }));
    await see("esc to interrupt");
    await press(KEYS.esc);
    await vi.waitFor(() => expect(fx.runtime.calls.interrupts).toBe(1));

    // While the turn runs, Ctrl+C interrupts it and does not arm the exit.
    await press(KEYS.ctrlC);
    await vi.waitFor(() => expect(fx.runtime.calls.interrupts).toBe(2));
    fx.runtime.emit(
      sessionEvent("processing_end", { state: "idle" as never, reason: "aborted", toolRounds: 0, usage }),
    );
    await see("Interrupted.");
    expect(exits).toEqual([]);

    // A draft is cleared by the first press; a press over the empty input then arms the exit.
    await press("half a thought");
    await see("half a thought");
    await press(KEYS.ctrlC);
    await vi.waitFor(() => expect(frame()).not.toContain("half a thought"));
    expect(frame()).not.toContain("Press Ctrl+C again to exit");
    await press(KEYS.ctrlC);
    await see("Press Ctrl+C again to exit");
    expect(exits).toEqual([]);
    await press(KEYS.ctrlC);
    await vi.waitFor(() => expect(exits).toEqual([0]));
    expect(fx.runtime.calls.closed).toBe(1);
  });

  it("shows the todo panel while the agent works, the status figures, and a failed send", async () => {
    fx.runtime.costValue = { ...fx.runtime.costValue, totalTokens: 12_345, costUsd: 0.042 };
    fx.runtime.context = 37.4;
    fx.runtime.emit(sessionEvent("user_input", { content: "fix add()", followUp: false }));
    fx.runtime.emit({
      kind: "todos_changed",
      todos: [
        { id: "1", content: "Read the failing test", status: "completed" },
        { id: "2", content: "Fix add()", status: "in_progress" },
      ],
    });
    await see("Todos 1/2");
    expect(frame()).toContain("☒ Read the failing test");
    expect(frame()).toContain("◐ Fix add()");
    expect(frame()).toMatch(/12\.3k tokens · \$0\.042 · ctx 37%/);
    fx.runtime.emit(
      sessionEvent("processing_end", { state: "idle" as never, reason: "completed", toolRounds: 1, usage }),
    );
    await vi.waitFor(() => expect(frame()).not.toContain("Todos 1/2"));

    fx.runtime.submitError = new Error("the runtime is closed");
    await typeLine("hello");
    await see("Could not send: the runtime is closed");
  });

  it("inserts a bracketed paste verbatim, newlines included, without sending it", async () => {
    await press("\x1b[200~", "first line\rsecond line", "\x1b[201~");
    await see(/› first line[^\n]*\n[^\n]*second line/);
    expect(fx.runtime.calls.submitted).toEqual([]);
    await press(KEYS.enter);
    expect(fx.runtime.calls.submitted).toEqual(["first line\nsecond line"]);
  });

  it("Esc twice on an empty prompt opens /rewind", async () => {
    await press(KEYS.esc);
    await press(KEYS.esc);
    await see("Nothing to rewind yet: no message was sent.");
  });
});

describe("resuming", () => {
  it("prints the stored conversation under the banner", async () => {
    app.unmount();
    await fx.cleanup();
    const ts = new Date().toISOString();
    fx = await createFakeRuntime({
      history: [
        { kind: "user", content: "what does add() do?", timestamp: ts },
        {
          kind: "assistant",
          content: "It **adds** two numbers.",
          toolCalls: [],
          parts: [],
          usage,
          timestamp: ts,
        },
      ],
    });
    app = render(<App runtime={fx.runtime} ui={ui} onExit={() => undefined} />);
    await see("It adds two numbers.");
    const f = frame();
    expect(f.indexOf("attractor")).toBeLessThan(f.indexOf("› what does add() do?"));
    expect(f.indexOf("› what does add() do?")).toBeLessThan(f.indexOf("It adds two numbers."));
  });
});
