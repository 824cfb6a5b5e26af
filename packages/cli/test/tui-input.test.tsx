/**
 * The prompt's input features through real key sequences: collapsed pastes, pasted and clipboard
 * images (a fake `xclip` on PATH), Ctrl+R history search, per-project history, typed-ahead text
 * kept across permission prompts and the end of a turn, and the /model picker.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listModels } from "@attractor/llm";
import { createPermissionPolicy } from "@attractor/runtime/permissions";
import { render } from "ink-testing-library";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/tui/app.js";
import { createInteractiveUi, type InteractiveUi } from "../src/tui/bridge.js";
import { InputBox } from "../src/tui/components/input-box.js";
import { readClipboardImage } from "../src/tui/input/clipboard.js";
import { InputHistory } from "../src/tui/input/history.js";
import { HOLD_MS } from "../src/tui/input/typing-guard.js";
import { createFakeRuntime, type FakeRuntimeFixture, sessionEvent } from "./tui-support.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped
const plain = (frame: string | undefined) => (frame ?? "").replace(/\x1b\[[0-9;]*m/g, "");
const KEYS = {
  enter: "\r",
  esc: "\x1b",
  backspace: "\x7f",
  up: "\x1b[A",
  down: "\x1b[B",
  ctrlC: "\x03",
  ctrlR: "\x12",
  ctrlV: "\x16",
  pasteStart: "\x1b[200~",
  pasteEnd: "\x1b[201~",
};
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
/** A 1x1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

let fx: FakeRuntimeFixture;
let ui: InteractiveUi;
let app: ReturnType<typeof render>;
let history: InputHistory;
/** A directory with a fake `xclip` put first on PATH, and what it serves. */
let bin: string;
let clipboardFile: string;
const savedEnv = {
  PATH: process.env.PATH,
  DISPLAY: process.env.DISPLAY,
  WAYLAND: process.env.WAYLAND_DISPLAY,
};

/** Writes keys one chunk at a time, letting Ink handle each before the next. */
async function press(...chunks: string[]) {
  for (const chunk of chunks) {
    app.stdin.write(chunk);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  }
}
const paste = (text: string) => press(KEYS.pasteStart, text, KEYS.pasteEnd);
const frame = () => plain(app.lastFrame());
/** Notices go to the transcript, printed once: they are looked for in every frame written. */
const printed = (text: string) =>
  vi.waitFor(() => expect(plain(app.frames.join("\n"))).toContain(text), { timeout: 15_000 });
const see = (text: string | RegExp) =>
  vi.waitFor(
    () => (typeof text === "string" ? expect(frame()).toContain(text) : expect(frame()).toMatch(text)),
    { timeout: 15_000 },
  );

beforeAll(async () => {
  bin = await mkdtemp(join(tmpdir(), "attractor-clipboard-"));
  clipboardFile = join(bin, "clipboard.png");
  // Serves the file as the clipboard's PNG when asked exactly as a clipboard reader asks; an
  // empty clipboard answers like xclip does (exit 1).
  await writeFile(
    join(bin, "xclip"),
    `#!/bin/sh
[ "$*" = "-selection clipboard -t image/png -o" ] || { echo "unexpected: $*" >&2; exit 2; }
[ -s "${clipboardFile}" ] || { echo "Error: target image/png not available" >&2; exit 1; }
cat "${clipboardFile}"
`,
  );
  await chmod(join(bin, "xclip"), 0o755);
  process.env.PATH = `${bin}:${savedEnv.PATH ?? "/usr/bin:/bin"}`;
  process.env.DISPLAY = ":42";
  delete process.env.WAYLAND_DISPLAY;
});

afterAll(async () => {
  process.env.PATH = savedEnv.PATH;
  if (savedEnv.DISPLAY === undefined) delete process.env.DISPLAY;
  else process.env.DISPLAY = savedEnv.DISPLAY;
  if (savedEnv.WAYLAND !== undefined) process.env.WAYLAND_DISPLAY = savedEnv.WAYLAND;
  await rm(bin, { recursive: true, force: true });
});

beforeEach(async () => {
  fx = await createFakeRuntime();
  ui = createInteractiveUi();
  history = new InputHistory(undefined, [
    "git status",
    "fix the parser bug",
    "run the tests",
    "fix the lexer",
  ]);
  app = render(<App runtime={fx.runtime} ui={ui} onExit={() => undefined} history={history} />);
  await see("Ask anything");
});

afterEach(async () => {
  app.unmount();
  await rm(clipboardFile, { force: true });
  await fx.cleanup();
});

describe("pastes", () => {
  it("a large paste shows as a placeholder, is sent whole, and Backspace removes the placeholder at once", async () => {
    await press("look: ");
    await paste("line one\rline two\rline three\rline four");
    await see("› look: [Pasted text #1 +3 lines]");
    expect(frame()).not.toContain("line two");
    expect(fx.runtime.calls.submitted).toEqual([]);
    await press(" and say why");
    await press(KEYS.enter);
    expect(fx.runtime.calls.submitted).toEqual([
      "look: line one\nline two\nline three\nline four and say why",
    ]);

    await paste("a\nb\nc");
    await paste("d\ne\nf\ng");
    await see("› [Pasted text #1 +2 lines][Pasted text #2 +3 lines]");
    await press(KEYS.backspace);
    await see(/› \[Pasted text #1 \+2 lines\]\s/);
    expect(frame()).not.toContain("#2");
    await press(KEYS.enter);
    expect(fx.runtime.calls.submitted.at(-1)).toBe("a\nb\nc");

    // ↑ brings a sent message back as it was typed, its paste collapsed and still whole; the draft
    // being typed (with its own paste) comes back with ↓.
    await press("draft ");
    await paste("p\nq\nr\ns");
    await see("› draft [Pasted text #1 +3 lines]");
    await press(KEYS.up);
    await see(/› \[Pasted text #1 \+2 lines\]\s/);
    await press(KEYS.up);
    await see("› look: [Pasted text #1 +3 lines] and say why");
    await press(KEYS.down, KEYS.down);
    await see("› draft [Pasted text #1 +3 lines]");
    await press(KEYS.enter);
    expect(fx.runtime.calls.submitted.at(-1)).toBe("draft p\nq\nr\ns");
    await press(KEYS.up, KEYS.up, KEYS.up);
    await see("› look: [Pasted text #1 +3 lines] and say why");
    await press(KEYS.enter);
    expect(fx.runtime.calls.submitted.at(-1)).toBe(
      "look: line one\nline two\nline three\nline four and say why",
    );

    // One long line is collapsed too, by its length.
    const long = "x".repeat(900);
    await paste(long);
    await see("› [Pasted text #1 900 chars]");
    await press(KEYS.enter);
    expect(fx.runtime.calls.submitted.at(-1)).toBe(long);
  });

  it("a pasted image path (as a terminal drops a file) attaches the image; a bad one says why and keeps the text", async () => {
    await mkdir(join(fx.project, "shots"), { recursive: true });
    await writeFile(join(fx.project, "shots", "my screen.png"), PNG);
    await writeFile(join(fx.project, "scan.bmp"), "BM not supported");
    await press("what is in ");
    await paste(`${join(fx.project, "shots").replace(/ /g, "\\ ")}/my\\ screen.png`);
    await see("› what is in [Image #1]");
    await paste("'scan.bmp'");
    await printed("Image not attached: scan.bmp: BMP images cannot be attached; PNG, JPEG, GIF and WebP can");
    await see("› what is in [Image #1]'scan.bmp'");
    await press(KEYS.enter);
    expect(fx.runtime.calls.submitted).toEqual(["what is in [Image #1]'scan.bmp'"]);
    expect(fx.runtime.calls.images).toHaveLength(1);
    const sent = fx.runtime.calls.images[0]?.images ?? [];
    expect(sent).toHaveLength(1);
    expect(sent[0]?.mediaType).toBe("image/png");
    expect(Buffer.from(String(sent[0]?.data), "base64").equals(PNG)).toBe(true);
  });

  it("several dropped files attach several images; prose that merely ends in .png stays text", async () => {
    await writeFile(join(fx.project, "a.png"), PNG);
    await writeFile(join(fx.project, "b c.png"), PNG);
    await paste(`'${join(fx.project, "a.png")}' ${join(fx.project, "b\\ c.png")}`);
    await see("› [Image #1] [Image #2]");
    await paste(" see missing.png");
    await see("› [Image #1] [Image #2] see missing.png");
    expect(plain(app.frames.join("\n"))).not.toContain("Image not attached");
    await press(KEYS.enter);
    await vi.waitFor(() => expect(fx.runtime.calls.images).toHaveLength(1));
    expect(fx.runtime.calls.images[0]?.images).toHaveLength(2);
  });

  it("@image.png in a message sends the image along, after a pasted one, labelled by its place", async () => {
    await writeFile(join(fx.project, "logo.png"), PNG);
    await writeFile(join(fx.project, "pasted.png"), PNG);
    await paste("pasted.png");
    await see("› [Image #1]");
    await press(" describe @logo.png", KEYS.enter);
    await vi.waitFor(() => expect(fx.runtime.calls.images).toHaveLength(1));
    expect(fx.runtime.calls.images[0]?.images).toHaveLength(2);
    expect(fx.runtime.calls.submitted[0]).toContain(
      '<attached-image path="logo.png">(image 2 of this message)</attached-image>',
    );
    expect(fx.runtime.calls.submitted[0]?.endsWith("describe @logo.png")).toBe(true);
    expect(fx.runtime.calls.images[0]?.images[1]?.mediaType).toBe("image/png");
  });
});

describe("clipboard images", () => {
  it("Ctrl+V attaches the clipboard's image; an empty clipboard or a non-image says so", async () => {
    await press(KEYS.ctrlV);
    await printed("No image pasted: the clipboard holds no image");
    await writeFile(clipboardFile, PNG);
    await press("see ", KEYS.ctrlV);
    await see("› see [Image #1]");
    await press(KEYS.ctrlV);
    await see("› see [Image #1][Image #2]");
    // Deleting a placeholder drops its image.
    await press(KEYS.backspace);
    await see(/› see \[Image #1\]\s/);
    await press(KEYS.enter);
    await vi.waitFor(() => expect(fx.runtime.calls.images).toHaveLength(1));
    expect(fx.runtime.calls.images[0]?.images).toHaveLength(1);
    expect(fx.runtime.calls.submitted).toEqual(["see [Image #1]"]);

    await writeFile(clipboardFile, "GIF? no, plain text");
    await press(KEYS.ctrlV);
    await printed("Image not attached: clipboard: not a valid PNG, JPEG, GIF or WebP image");
  });

  it("the reader names the missing tool, or the lack of a display, instead of failing", async () => {
    const empty = await mkdtemp(join(tmpdir(), "attractor-nopath-"));
    try {
      await expect(readClipboardImage({ PATH: empty, DISPLAY: ":1" }, "linux")).resolves.toEqual({
        kind: "none",
        reason: "xclip is not installed, so the clipboard cannot be read",
      });
      const none = await readClipboardImage({ PATH: empty }, "linux");
      expect(none.kind).toBe("none");
      expect(none.kind === "none" && none.reason).toContain("no clipboard reader");
      await writeFile(clipboardFile, PNG);
      const got = await readClipboardImage({ PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ":1" }, "linux");
      expect(got.kind === "image" && got.bytes.equals(PNG)).toBe(true);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("a model that reads no images keeps the draft and says so", async () => {
    app.unmount();
    const sent: string[] = [];
    const notices: string[] = [];
    await writeFile(clipboardFile, PNG);
    app = render(
      <InputBox
        onSubmit={(text) => sent.push(text)}
        onNotice={(text) => notices.push(text)}
        refuseImages={() => "this model does not read images"}
      />,
    );
    await press("look ", KEYS.ctrlV);
    await see("› look [Image #1]");
    await press(KEYS.enter);
    expect(notices).toEqual(["this model does not read images"]);
    expect(sent).toEqual([]);
    expect(frame()).toContain("look [Image #1]");
    await press(KEYS.backspace, KEYS.enter);
    expect(sent).toEqual(["look "]);
  });
});

describe("Ctrl+R history search", () => {
  it("finds the newest match, Ctrl+R goes older, Enter puts it in the editor, Esc gives the draft back", async () => {
    await press("my draft");
    await press(KEYS.ctrlR);
    await see("search history:");
    await press("f", "i", "x");
    await see("› fix the lexer");
    await press(KEYS.ctrlR);
    await see("› fix the parser bug");
    // Past the oldest match it stays there.
    await press(KEYS.ctrlR);
    await see("› fix the parser bug");
    await press(KEYS.enter);
    await vi.waitFor(() => expect(frame()).not.toContain("search history:"));
    expect(frame()).toContain("› fix the parser bug");
    expect(fx.runtime.calls.submitted).toEqual([]);
    await press(" now", KEYS.enter);
    expect(fx.runtime.calls.submitted).toEqual(["fix the parser bug now"]);

    await press("second draft", KEYS.ctrlR, "zzz");
    await see("no match in the history");
    await press(KEYS.esc);
    await see("› second draft");
    expect(frame()).not.toContain("search history:");
  });

  it("keys typed ahead in one chunk are taken one by one: Ctrl+R, the query, Enter", async () => {
    await press("\x12run\r");
    await see("› run the tests");
    expect(frame()).not.toContain("search history:");
    expect(fx.runtime.calls.submitted).toEqual([]);
    await press("\x15again\r");
    expect(fx.runtime.calls.submitted).toEqual(["again"]);
  });

  it("Esc closing the search does not interrupt a running turn", async () => {
    fx.runtime.holdSubmits = true;
    await press("long task", KEYS.enter);
    fx.runtime.emit(sessionEvent("user_input", { content: "long task", followUp: false }));
    await see("esc to interrupt");
    await press(KEYS.ctrlR, "git");
    await see("› git status");
    await press(KEYS.esc);
    await vi.waitFor(() => expect(frame()).not.toContain("search history:"));
    await new Promise((r) => setTimeout(r, 20));
    expect(fx.runtime.calls.interrupts).toBe(0);
    // The next Esc is the usual one.
    await press(KEYS.esc);
    await vi.waitFor(() => expect(fx.runtime.calls.interrupts).toBe(1));
  });

  it("history persists per project, and entries of the older untagged format are kept for all", async () => {
    const dir = await mkdtemp(join(tmpdir(), "attractor-history-"));
    const file = join(dir, "input-history.jsonl");
    try {
      await writeFile(file, `${JSON.stringify("from before")}\n`);
      const a = new InputHistory(file, [], "/projects/a");
      a.push("only in a");
      const b = new InputHistory(file, [], "/projects/b");
      b.push("only in b");
      expect(new InputHistory(file, [], "/projects/a").all()).toEqual(["from before", "only in a"]);
      expect(new InputHistory(file, [], "/projects/b").matches("only")).toEqual(["only in b"]);
      const lines = (await readFile(file, "utf8")).trim().split("\n");
      expect(JSON.parse(lines[1] as string)).toEqual({ text: "only in a", project: "/projects/a" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("typed-ahead text", () => {
  it("what is typed while the agent works survives a permission prompt and the end of the turn", async () => {
    fx.runtime.holdSubmits = true;
    await press("long task", KEYS.enter);
    fx.runtime.emit(sessionEvent("user_input", { content: "long task", followUp: false }));
    await see("esc to interrupt");
    await press("next I want");
    await see("› next I want");
    const policy = createPermissionPolicy({ mode: "normal", projectRoot: fx.project, ask: ui.askPermission });
    const decision = policy.check({ callId: "s1", toolName: "shell", arguments: { command: "touch made" } });
    await see("Run a command?");
    expect(frame()).not.toContain("next I want");
    // Typing goes on right after the answer: the input, shown again, takes it at once. (The
    // answer waits for the moment in which keys typed as the prompt appeared go to the draft.)
    await new Promise((r) => setTimeout(r, HOLD_MS + 100));
    await press("y", " to see");
    await expect(decision).resolves.toMatchObject({ behavior: "allow" });
    await see("› next I want to see");
    fx.runtime.emit(
      sessionEvent("processing_end", { state: "idle" as never, reason: "completed", toolRounds: 1, usage }),
    );
    await vi.waitFor(() => expect(frame()).not.toContain("esc to interrupt"));
    expect(frame()).toContain("› next I want");
    await press(" the tests", KEYS.enter);
    expect(fx.runtime.calls.submitted).toEqual(["long task", "next I want to see the tests"]);
  });
});

describe("typing as a question appears", () => {
  it("keys typed just as a permission prompt appears stay in the draft; the prompt answers after a moment", async () => {
    fx.runtime.holdSubmits = true;
    await press("long task", KEYS.enter);
    fx.runtime.emit(sessionEvent("user_input", { content: "long task", followUp: false }));
    await see("esc to interrupt");
    await press("a", "n");
    const policy = createPermissionPolicy({ mode: "normal", projectRoot: fx.project, ask: ui.askPermission });
    let answered = false;
    const decision = policy.check({ callId: "s1", toolName: "shell", arguments: { command: "touch made" } });
    void decision.then(() => {
      answered = true;
    });
    await see("Run a command?");
    // "y" and "a" would allow the command, Enter the highlighted option: they are the user's words.
    await press("d", " y", "a", KEYS.enter);
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    expect(frame()).toContain("Run a command?");
    // Enter sent the draft the user was typing (as steering, the agent being busy).
    expect(fx.runtime.calls.steered).toEqual(["and ya"]);
    // Once the moment has passed, the prompt takes its keys.
    await new Promise((r) => setTimeout(r, HOLD_MS + 100));
    await press("n");
    await expect(decision).resolves.toMatchObject({ behavior: "deny" });
  });
});

describe("/model picker", () => {
  it("lists the provider's models with the current one highlighted; arrows and Enter switch the model", async () => {
    const models = listModels("anthropic").map((m) => m.id);
    const current = models.indexOf(fx.runtime.model);
    expect(current).toBeGreaterThanOrEqual(0);
    await press("/model", KEYS.enter);
    await see("Model for this session");
    expect(frame()).toMatch(
      new RegExp(`❯\\s+(\\d+\\.\\s+)?${fx.runtime.model.replace(/\./g, "\\.")} .*current`),
    );
    const next = models[(current + 1) % models.length] as string;
    // Pressed as soon as the list shows: the keys are not lost while it starts listening.
    await press(KEYS.down);
    await see(new RegExp(`❯\\s+(\\d+\\.\\s+)?${next.replace(/\./g, "\\.")} `));
    await press(KEYS.enter);
    await vi.waitFor(() => expect(fx.runtime.calls.models).toEqual([next]));
    await see(`Model: ${next}`);
  });
});
