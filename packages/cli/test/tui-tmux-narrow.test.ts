/**
 * A 60-column pane: a Markdown table wider than the pane wraps inside its cells (the rule row
 * stays one row, every row keeps its column bars aligned) and no line is wider than the pane.
 */
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

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

/**
 * Prose, a list and a quote whose lines wrap at sixty columns; the first row of each is exactly
 * full (58 cells beside the answer's gutter, 56 beside a list marker or the quote's bar), the
 * case where the space of the break used to start the next row.
 */
const FULL_58 = `${"word ".repeat(11)}end`;
const FULL_56 = `${"word ".repeat(10)}ending`;
const PROSE = [
  `${FULL_58} of a paragraph that goes on long enough to wrap a few times in a narrow pane.`,
  "",
  `- ${FULL_56} of a list item that wraps onto a second and a third line in a pane this narrow`,
  "- short item",
  "  1. a nested numbered item that also wraps onto more lines than one in sixty columns",
  "",
  `> ${FULL_56} of a quoted sentence that goes on so that it wraps inside the quote's bar`,
  "",
  "Prose done.",
].join("\n");

const fx = tmuxFixture("narrow", async (req, res) => {
  const body = await requestText(req);
  const text = body.includes("zebra indents") ? PROSE : ANSWER;
  sendEvents(res, streamEventsFor([{ type: "text", text }], "end_turn", { input: 10, output: 5 }));
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

  it("wraps prose, list items and quotes at their hanging indent, with no stray space", async () => {
    const terminal = fx.start("hanging", [], undefined, { columns: 60, rows: 50 });
    await terminal.waitFor("Ask anything");
    terminal.type("zebra indents please");
    terminal.press("Enter");
    await terminal.waitFor("Prose done.");
    const lines = terminal.screen().split("\n");
    const from = lines.findIndex((l) => l.startsWith("● word"));
    const body = lines.slice(from, lines.findIndex((l) => l.includes("Prose done.")) + 1);
    // Copied text carries no space a break left behind, at either end of a row.
    for (const line of body) expect(line).toBe(line.trimEnd());
    const paragraph = body.slice(0, body.indexOf(""));
    expect(paragraph[0]).toBe(`● ${FULL_58}`);
    expect(paragraph.length).toBeGreaterThan(2);
    for (const row of paragraph.slice(1)) expect(row).toMatch(/^ {2}\S/);
    const item = body.findIndex((l) => l.startsWith("  • word"));
    expect(body[item]).toBe(`  • ${FULL_56}`);
    expect(body[item + 1]).toMatch(/^ {4}of a list item/);
    expect(body[item + 2]).toMatch(/^ {4}\S/);
    const nested = body.findIndex((l) => l.startsWith("    1. a nested"));
    expect(body[nested + 1]).toMatch(/^ {7}\S/);
    const quote = body.filter((l) => l.startsWith("  │"));
    expect(quote[0]).toBe(`  │ ${FULL_56}`);
    expect(quote.length).toBeGreaterThan(1);
    for (const row of quote.slice(1)) expect(row).toMatch(/^ {2}│ \S/);
  }, 60_000);
});
