/**
 * NO_COLOR (and TERM=dumb) in a real terminal: the screen (its cells' attributes as tmux reports
 * them) holds no colour at all, with a highlighted code block, inline code and a heading on it,
 * and no style but the cursor's; without NO_COLOR the same screen is coloured (so the count means
 * something), and FORCE_COLOR overrides NO_COLOR.
 */
import { execFileSync } from "node:child_process";
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const ANSWER = [
  "# Result",
  "",
  "Use `npm test` and **check** the output:",
  "",
  "```ts",
  'const answer: number = 42; // "forty-two"',
  "export function double(x: number): number { return x * 2; }",
  "```",
  "",
  "Done.",
].join("\n");

const fx = tmuxFixture("nocolor", (_req, res) => {
  sendEvents(res, streamEventsFor([{ type: "text", text: ANSWER }], "end_turn", { input: 10, output: 5 }));
});

/** The screen's lines with their attributes, as tmux renders them in SGR sequences. */
function attributedScreen(name: string): string[] {
  return execFileSync(
    "tmux",
    ["-L", `attractor-${name}-${process.pid}`, "capture-pane", "-p", "-e", "-t", name],
    { encoding: "utf8" },
  ).split("\n");
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC
const SGR = /\x1b\[([0-9;:]*)m/g;

/** The lines holding a colour (foreground or background, any form). */
function colouredLines(lines: readonly string[]): string[] {
  return lines.filter((line) =>
    [...line.matchAll(SGR)].some(({ 1: list = "" }) =>
      list.split(";").some((p) => {
        const code = Number(p.split(":")[0]);
        // 39 and 49 (the default colours) are how tmux ends every styled run.
        return (code >= 30 && code <= 48 && code !== 39) || (code >= 90 && code <= 107);
      }),
    ),
  );
}

async function answered(name: string, env: Record<string, string>): Promise<string[]> {
  const terminal = fx.start(name, [], { ...fx.env(), ...env });
  await terminal.waitFor("Ask anything");
  terminal.type("show me");
  terminal.press("Enter");
  await terminal.waitFor("Done.");
  // The highlighter loads in the background; give it the time it takes to colour a block.
  await new Promise((r) => setTimeout(r, 1500));
  return attributedScreen(name);
}

describe("NO_COLOR in tmux", () => {
  it("no colour escapes on the screen with NO_COLOR; coloured without it; FORCE_COLOR wins", async () => {
    const plain = await answered("plain", { NO_COLOR: "1" });
    expect(colouredLines(plain)).toEqual([]);
    // Only the inverse cursor remains: the heading's underline goes with the colours.
    const styled = plain.filter((line) =>
      [...line.matchAll(SGR)].some(({ 1: list = "" }) =>
        list.split(";").some((p) => !["0", "39", "49"].includes(p)),
      ),
    );
    expect(styled).toHaveLength(1);
    expect(styled[0]).toContain("Ask anything");
    // Every escape on the screen is on that line (tmux ends a styled run with resets on the next).
    expect(plain.filter((line) => line.includes("\x1b")).length).toBeLessThanOrEqual(2);

    // TERM=dumb asks for the same.
    const dumb = await answered("dumb", { TERM: "dumb" });
    expect(colouredLines(dumb)).toEqual([]);
    expect(dumb.filter((line) => line.includes("\x1b")).length).toBeLessThanOrEqual(2);

    const coloured = await answered("coloured", {});
    expect(colouredLines(coloured).length).toBeGreaterThan(3);

    const forced = await answered("forced", { NO_COLOR: "1", FORCE_COLOR: "1" });
    expect(colouredLines(forced).length).toBeGreaterThan(0);
  }, 90_000);
});
