/**
 * The /resume picker in a tmux pane: → expands the highlighted conversation into a preview (its
 * size, the user's messages, the start of the last answer), ← folds it, and the conversation
 * picked comes back whole.
 */
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const fx = tmuxFixture("resume-picker", async (req, res) => {
  const body = await requestText(req);
  const text = body.includes("second question about the lexer")
    ? "The lexer splits tokens.\n\nMore about the lexer."
    : body.includes("first question about the parser")
      ? "The parser reads tokens."
      : "Something else entirely.";
  sendEvents(res, streamEventsFor([{ type: "text", text }], "end_turn", { input: 10, output: 5 }));
});

describe("the /resume picker", () => {
  it("expands a conversation into its preview and folds it again; the one picked comes back whole", async () => {
    const first = fx.start("picker-first");
    await first.waitFor("Ask anything");
    first.type("first question about the parser");
    first.press("Enter");
    await first.waitFor("The parser reads tokens.");
    first.type("second question about the lexer");
    first.press("Enter");
    await first.waitFor("More about the lexer.");
    first.type("/exit");
    first.press("Enter");
    await first.waitFor("resume it with");

    const second = fx.start("picker-second");
    await second.waitFor("Ask anything");
    second.type("an unrelated message");
    second.press("Enter");
    await second.waitFor("Something else entirely.");
    second.type("/resume");
    second.press("Enter");
    const picker = await second.waitFor("Resume which conversation?");
    expect(picker).toContain("→ preview");
    expect(picker).not.toContain("2 messages from you");

    second.press("Right");
    const expanded = await second.waitFor("2 messages from you");
    // The picker is drawn in a box: its rows without the bars.
    const lines = expanded.split("\n").map((l) => l.replace(/^│|│$/g, "").trim());
    const at = lines.findIndex((l) => l.includes("2 messages from you · 0 tool calls"));
    expect(lines[at + 1]).toBe("› first question about the parser");
    expect(lines[at + 2]).toBe("› second question about the lexer");
    expect(lines[at + 3]).toBe("● The lexer splits tokens.");
    expect(lines[at + 4]).toBe("More about the lexer.");

    second.press("Left");
    await second.waitForScreen((s) => !s.includes("messages from you"), "the preview folded");
    second.press("Enter");
    const resumed = await second.waitFor("Resumed conversation");
    expect(resumed).toContain("› first question about the parser");
    expect(resumed).toContain("The parser reads tokens.");
    expect(resumed).toContain("More about the lexer.");
  }, 60_000);
});
