/**
 * A 60-column pane: a Markdown table wider than the pane wraps inside its cells (the rule row
 * stays one row, every row keeps its column bars aligned) and no line is wider than the pane.
 */
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const ANSWER = [
  "Here are the scripts:",
  "",
  "| Script | What it does | When to run it |",
  "| --- | --- | --- |",
  "| build | compiles every package and bundles the command for publishing | before a release |",
  "| test | runs the whole suite against real processes and servers | before every commit |",
  "",
  "Done.",
].join("\n");

const fx = tmuxFixture("narrow", (_req, res) => {
  sendEvents(res, streamEventsFor([{ type: "text", text: ANSWER }], "end_turn", { input: 10, output: 5 }));
});

describe("a 60-column pane", () => {
  it("wraps a wide table inside its cells", async () => {
    const terminal = fx.start("narrow", [], undefined, { columns: 60, rows: 40 });
    await terminal.waitFor("Ask anything");
    terminal.type("which scripts?");
    terminal.press("Enter");
    const screen = await terminal.waitFor("Done.");
    const lines = screen.split("\n");
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    // One rule row, and every table row with its two bars at the rule's crossings.
    const rules = lines.filter((l) => l.includes("─┼─"));
    expect(rules).toHaveLength(1);
    const rule = rules[0] ?? "";
    const crossings = [...rule].flatMap((ch, i) => (ch === "┼" ? [i] : []));
    const start = lines.indexOf(rule) - 1;
    const table = lines
      .slice(
        start,
        lines.findIndex((l) => l.includes("Done.")),
      )
      .filter((l) => l.includes("│"));
    expect(table.length).toBeGreaterThan(4);
    for (const row of table) {
      const bars = [...row].flatMap((ch, i) => (ch === "│" ? [i] : []));
      expect(bars).toEqual(crossings);
    }
    expect(screen).toContain("compiles every");
  }, 60_000);
});
