/**
 * The interactive UI in a 60-column tmux pane: nothing it draws is wider than the pane (the
 * banner, the answer, the permission prompt with its diff, the input box and the status line),
 * wide characters and emoji are measured by their cells, and backspace removes a whole grapheme
 * cluster; ctrl+o scrolls a long diff in the prompt. Ctrl+C clears a draft, never exits while one is typed, and exits on a second press
 * over an empty input.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { streamEventsFor } from "@attractor/llm/testing";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import type { TmuxTerminal } from "./support/tmux.js";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const COLUMNS = 60;
const LONG_LINE = `const message = "${"x".repeat(90)}";`;
/** Enough added lines that the prompt's diff is cut and ctrl+o has something to scroll. */
const ROWS = Array.from({ length: 60 }, (_, i) => `const row${i + 1} = ${i + 1};`).join("\n");
const ANSWER =
  "I will widen the constant now. 日本語の文章も正しく折り返されるべきです。" +
  " Emoji such as 🎉 take two cells, e\u0301 takes one, and this sentence is long enough to wrap twice at sixty.";

/** A Messages API server: the first turn answers and asks to edit a file with a long line. */
const fx = tmuxFixture(
  "layout",
  async (req, res) => {
    const body = JSON.parse(await requestText(req));
    const hasResult = JSON.stringify(body.messages).includes("tool_result");
    const events = hasResult
      ? streamEventsFor([{ type: "text", text: "Done." }], "end_turn", { input: 300, output: 20 })
      : streamEventsFor(
          [
            { type: "text", text: ANSWER },
            {
              type: "tool_use",
              id: "toolu_edit_1",
              name: "edit_file",
              input: { file_path: "wide.ts", old_string: "short", new_string: `${LONG_LINE}\n${ROWS}` },
            },
          ],
          "tool_use",
          { input: 250, output: 40 },
        );
    sendEvents(res, events);
  },
  { prepare: (_root, project) => writeFile(join(project, "wide.ts"), "short\n") },
);

/** The pane the first test starts and the second goes on with. */
let terminal: TmuxTerminal | undefined;

/** Lines of the screen (wrapped lines joined, so a line drawn past the edge shows as too long). */
const tooWide = (screen: string) => screen.split("\n").filter((line) => stringWidth(line) > COLUMNS);

describe("the interactive UI at 60 columns", () => {
  it("draws no line wider than the pane, lays out the permission prompt, edits by grapheme", async () => {
    terminal = fx.start("layout", ["--provider", "anthropic"], undefined, {
      columns: COLUMNS,
      rows: 40,
    });
    const { waitFor, screen, type, press } = terminal;

    const first = await waitFor("Ask anything");
    expect(tooWide(first)).toEqual([]);

    // Backspace takes a whole cluster: "e" with a combining accent (two code points) goes at once.
    type("cafe\u0301🎉");
    await waitFor("cafe\u0301🎉");
    press("BSpace");
    await terminal.waitForScreen((s) => s.includes("› cafe\u0301") && !s.includes("🎉"), "the emoji gone");
    press("BSpace");
    await terminal.waitForScreen((s) => /› caf\s/.test(s), "the accented letter gone whole");
    press("C-u");

    type("Widen the constant in wide.ts please, 日本語 too");
    await waitFor("日本語 too");
    press("Enter");

    const prompt = await waitFor("Allow once");
    expect(prompt).toContain("Change files?");
    expect(tooWide(prompt)).toEqual([]);
    // The prompt's box is closed on both sides on every row of it.
    const box = prompt.split("\n").filter((l) => /^[│╭╰]/.test(l));
    expect(box.length).toBeGreaterThan(4);
    for (const line of box) expect(line.trimEnd()).toMatch(/[│╮╯]$/);

    // ctrl+o scrolls the rest of the diff inside the same box, still within the pane.
    expect(prompt).toContain("ctrl+o to scroll the whole diff");
    expect(prompt).not.toContain("row60 ");
    press("C-o");
    await waitFor("ctrl+o back to the answers");
    press("Down", "Down", "Down", "Down", "Down");
    await waitFor("↑ 5 diff lines above");
    press("PageDown", "PageDown", "PageDown", "PageDown");
    const end = await waitFor("const row60 = 60;");
    expect(tooWide(end)).toEqual([]);
    expect(end).not.toContain("more diff lines");
    press("C-o");
    await waitFor("ctrl+o to scroll the whole diff");
    press("y");
    await waitFor("Done.");
    const after = screen();
    // The answer before the edit is printed once, above the tool block (in the scrollback when
    // the block fills the screen).
    expect(terminal.history().split("🎉 take two cells").length - 1).toBe(1);
    expect(tooWide(after)).toEqual([]);
  }, 90_000);

  it("clears a draft on Ctrl+C and exits only on a second press over an empty input", async () => {
    if (!terminal) throw new Error("the first test starts the terminal");
    const { waitFor, waitForScreen, type, press } = terminal;
    type("a draft I am still writing");
    await waitFor("a draft I am still writing");
    press("C-c");
    await waitForScreen((s) => !s.includes("a draft I am still writing"), "the draft cleared");
    // A second press right after clearing a draft does not exit: the input was not empty on the first.
    type("another draft");
    await waitFor("another draft");
    press("C-c");
    await waitForScreen((s) => !s.includes("another draft"), "the second draft cleared");
    expect(terminal.screen()).not.toContain("is stored; resume it with");
    press("C-c");
    await waitFor("Press Ctrl+C again to exit");
    press("C-c");
    await waitFor("is stored; resume it with: attractor --resume");
  }, 60_000);
});
