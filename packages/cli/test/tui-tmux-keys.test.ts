/**
 * Keys in a real terminal: Shift+Enter and Ctrl+Enter in both enhanced encodings (kitty's
 * `CSI 13;2u`, xterm modifyOtherKeys' `CSI 27;2;13~`) insert a new line and never send the draft
 * or type the sequence into it; readline word moves and kills; a draft cleared by Ctrl+C comes
 * back with Ctrl+Y; Ctrl+D on the empty prompt exits after a second press, with a hint.
 */
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

/** The last user message of each request. */
const sent: string[] = [];

const fx = tmuxFixture("keys", async (req, res) => {
  const body = JSON.parse(await requestText(req));
  const last = (body.messages ?? []).filter((m: { role: string }) => m.role === "user").at(-1);
  const content = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : last?.content;
  sent.push(
    (content ?? [])
      .filter((b: { type: string }) => b.type === "text")
      .map((b: { text: string }) => b.text)
      .join("\n"),
  );
  sendEvents(
    res,
    streamEventsFor([{ type: "text", text: `Answer ${sent.length}.` }], "end_turn", { input: 10, output: 5 }),
  );
});

const ESC = "\x1b";

describe("keys in tmux", () => {
  it("Shift+Enter and Ctrl+Enter in both encodings make new lines; Enter sends", async () => {
    const terminal = fx.start("newlines");
    const { waitFor, type, press } = terminal;
    await waitFor("Ask anything");
    type("one");
    type(`${ESC}[13;2u`);
    type("two");
    type(`${ESC}[27;2;13~`);
    type("three");
    type(`${ESC}[13;5u`);
    type("four");
    type(`${ESC}[27;5;13~`);
    type("five");
    await waitFor("five");
    const draft = terminal.screen();
    expect(draft).not.toMatch(/\[27;|13;2u|13;5u/);
    expect(sent).toEqual([]);
    press("Enter");
    await waitFor("Answer 1.");
    expect(sent[0]?.trimEnd().endsWith("one\ntwo\nthree\nfour\nfive")).toBe(true);
  }, 60_000);

  it("word moves and kills, Ctrl+Y after Ctrl+C, Ctrl+D twice exits", async () => {
    const terminal = fx.start("readline");
    const { waitFor, type, press } = terminal;
    await waitFor("Ask anything");
    type("alpha beta gamma");
    await waitFor("alpha beta gamma");
    // Alt+B twice: before "beta"; then a word typed there.
    press("M-b");
    press("M-b");
    type("X ");
    await waitFor("alpha X beta gamma");
    // Ctrl+Right in xterm's form and in modifyOtherKeys' Ctrl+W: the word before the cursor goes.
    type(`${ESC}[1;5C`);
    type(`${ESC}[27;5;119~`);
    await waitFor("alpha X  gamma");
    // Ctrl+Y puts the killed word back.
    press("C-y");
    await waitFor("alpha X beta gamma");
    // Ctrl+C clears the draft; Ctrl+Y restores all of it.
    press("C-c");
    await terminal.waitForScreen((screen) => !screen.includes("alpha X"), "the draft cleared");
    press("C-y");
    await waitFor("alpha X beta gamma");
    // Ctrl+U kills to the line start, Alt+Backspace in kitty's form kills a word.
    press("C-u");
    await terminal.waitForScreen((screen) => !screen.includes("alpha X"), "the line killed");
    type("keep this word");
    type(`${ESC}[127;3u`);
    type("Z");
    await waitFor("keep this Z");
    expect(terminal.screen()).not.toContain("127;3u");
    press("C-u");
    await terminal.waitForScreen((screen) => !screen.includes("keep this"), "the line killed");
    // Ctrl+D on the empty prompt: a hint first, the exit on the second press.
    press("C-d");
    await waitFor("Press Ctrl+D again to exit");
    press("C-d");
    await waitFor("resume it with");
  }, 60_000);
});
