/**
 * A permission prompt taller than the terminal (a 100-line write at 40 and 30 rows): its diff
 * gives way so the live area fits the screen, and once it is approved the screen is what it would
 * have been without it: one input box, one status line, no spinner or "Working…" left behind.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const CONTENT = Array.from({ length: 100 }, (_, i) => `line ${i + 1}: ${"text ".repeat(8)}`).join("\n");

/** A here-doc of a hundred lines: a command taller than the terminal. */
const COMMAND = `cat > rows.txt <<'END'\n${Array.from({ length: 100 }, (_, i) => `row ${i + 1}`).join("\n")}\nEND`;

const fx = tmuxFixture("tall", async (req, res) => {
  const body = JSON.parse(await requestText(req));
  const hasResult = JSON.stringify(body.messages).includes("tool_result");
  if (JSON.stringify(body.messages).includes("run the tall command")) {
    sendEvents(
      res,
      hasResult
        ? streamEventsFor([{ type: "text", text: "Ran the command." }], "end_turn", {
            input: 300,
            output: 20,
          })
        : streamEventsFor(
            [{ type: "tool_use", id: "toolu_tall_command", name: "shell", input: { command: COMMAND } }],
            "tool_use",
            { input: 250, output: 40 },
          ),
    );
    return;
  }
  // Each test names its own file in its message ("write file 40").
  const name = /write file (\d+)/.exec(JSON.stringify(body.messages))?.[1] ?? "x";
  sendEvents(
    res,
    hasResult
      ? streamEventsFor([{ type: "text", text: "Wrote the file." }], "end_turn", { input: 300, output: 20 })
      : streamEventsFor(
          [
            { type: "text", text: "Writing it." },
            {
              type: "tool_use",
              id: `toolu_write_${name}`,
              name: "write_file",
              input: { file_path: `tall-${name}.txt`, content: CONTENT },
            },
          ],
          "tool_use",
          { input: 250, output: 40 },
        ),
  );
});

const count = (screen: string, pattern: RegExp) => screen.split("\n").filter((l) => pattern.test(l)).length;

describe("a permission prompt taller than the terminal", () => {
  for (const rows of [40, 30]) {
    it(`fits ${rows} rows, and after approval leaves the screen clean`, async () => {
      const terminal = fx.start(`tall${rows}`, [], undefined, { columns: 100, rows });
      const { waitFor, type, press } = terminal;
      await waitFor("Ask anything");
      type(`write file ${rows}`);
      press("Enter");
      await waitFor("ctrl+o to scroll");
      await waitFor("Abort the run");
      const asking = terminal.screen();
      // The whole prompt is on screen: its title and every answer.
      expect(asking).toContain("Change files?");
      expect(asking).toContain("Abort the run");
      expect(asking).toContain("ctrl+o");
      expect(asking.trimEnd().split("\n").length).toBeLessThanOrEqual(rows);
      press("y");
      await waitFor("Wrote the file.");
      await new Promise((r) => setTimeout(r, 500));
      const after = terminal.screen();
      expect(count(after, /Working…/)).toBe(0);
      expect(count(after, /Ask anything/)).toBe(1);
      expect(count(after, /shift\+tab mode/)).toBe(1);
      expect(count(after, /Allow once|Change files\?/)).toBe(0);
      const written = await readFile(join(fx.project, `tall-${rows}.txt`), "utf8");
      expect(written).toBe(CONTENT);
    }, 60_000);
  }

  it("shows a command taller than the terminal from its start, scrolls it with ctrl+o, and runs it", async () => {
    const rows = 30;
    const terminal = fx.start("tallcommand", [], undefined, { columns: 80, rows });
    const { waitFor, type, press } = terminal;
    await waitFor("Ask anything");
    type("run the tall command");
    press("Enter");
    await waitFor("Abort the run");
    const asking = terminal.screen();
    expect(asking).toContain("Run a command?");
    expect(asking).toContain("$ cat > rows.txt <<'END'");
    expect(asking).toMatch(/… \d+ more lines/);
    expect(asking).toContain("ctrl+o to scroll the whole command");
    expect(asking).not.toContain("row 100");
    expect(asking.trimEnd().split("\n").length).toBeLessThanOrEqual(rows);
    // ctrl+o, then to the end of it: the last lines show, the prompt still whole on the screen.
    press("C-o");
    await waitFor("ctrl+o back to the answers");
    for (let i = 0; i < 12; i++) press("PageDown");
    const end = await waitFor("row 100");
    expect(end).toContain("Run a command?");
    expect(end).toMatch(/↑ \d+ lines above/);
    press("C-o");
    await waitFor("ctrl+o to scroll the whole command");
    press("y");
    await waitFor("Ran the command.");
    await new Promise((r) => setTimeout(r, 500));
    const after = terminal.screen();
    expect(count(after, /Working…/)).toBe(0);
    expect(count(after, /Ask anything/)).toBe(1);
    expect(count(after, /shift\+tab mode/)).toBe(1);
    expect(count(after, /Allow once|Run a command\?/)).toBe(0);
    const written = await readFile(join(fx.project, "rows.txt"), "utf8");
    expect(written.split("\n")).toHaveLength(101);
  }, 60_000);
});
