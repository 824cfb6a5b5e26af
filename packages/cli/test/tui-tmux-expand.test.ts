/**
 * Expanding a tool call's truncated output in the interactive UI, in a tmux pane: the block says
 * how many lines are hidden and which key shows them; ctrl+o shows the whole output, scrolled to
 * its end, and ctrl+o again goes back to the input.
 */
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

/** First request: a command printing 300 numbered lines; then a short answer. */
const fx = tmuxFixture("expand", async (req, res) => {
  const answered = (await requestText(req)).includes("tool_result");
  sendEvents(
    res,
    answered
      ? streamEventsFor([{ type: "text", text: "Printed them." }], "end_turn", { input: 300, output: 10 })
      : streamEventsFor(
          [{ type: "tool_use", id: "toolu_seq", name: "shell", input: { command: "seq -f 'row %g' 1 300" } }],
          "tool_use",
          { input: 200, output: 20 },
        ),
  );
});

describe("expanding truncated output", () => {
  it("shows a call's whole output on ctrl+o, scrolls it, and goes back", async () => {
    const t = fx.start("expand", ["--provider", "anthropic", "--mode", "yolo"]);
    await t.waitFor("Ask anything");
    t.type("print the rows");
    t.press("Enter");
    const block = await t.waitFor("Printed them.");
    // 300 rows, of which the block shows the first 5: the count of the rest is exact.
    expect(block).toContain("row 5");
    expect(block).not.toContain("row 6\n");
    expect(block).toContain("… +295 lines (ctrl+o to view all)");

    t.press("C-o");
    const viewer = await t.waitFor("ctrl+o back");
    expect(viewer).toMatch(/Shell seq/);
    expect(viewer).toMatch(/lines 1–\d+ of 302/);
    expect(viewer).not.toContain("Ask anything");
    t.press("G");
    const end = await t.waitFor("row 300");
    expect(end).toContain("of 302");
    expect(end).toContain("Exit code: 0");
    t.press("PageUp");
    await t.waitForScreen((s) => !s.includes("row 300") && /lines \d+–\d+ of 302/.test(s), "a page up");

    t.press("C-o");
    const back = await t.waitFor("Ask anything");
    expect(back).not.toContain("ctrl+o back");
  }, 90_000);
});
