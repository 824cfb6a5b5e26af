/**
 * /clear starts the status line's figures again (tokens, cost, context use) for the new
 * conversation, while /cost still counts the whole run.
 */
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const fx = tmuxFixture("clear", (_req, res) => {
  sendEvents(
    res,
    streamEventsFor([{ type: "text", text: "Answered." }], "end_turn", { input: 1200, output: 34 }),
  );
});

const status = (screen: string) => screen.split("\n").find((l) => l.includes("shift+tab mode")) ?? "";

describe("/clear in tmux", () => {
  it("resets the status line's tokens and context; /cost keeps the run's totals", async () => {
    const terminal = fx.start("clear");
    await terminal.waitFor("Ask anything");
    terminal.type("hello");
    terminal.press("Enter");
    await terminal.waitFor("Answered.");
    await terminal.waitForScreen((s) => /1\.2k tokens|1,?234 tokens/.test(status(s)), "the tokens counted");
    terminal.type("/clear");
    terminal.press("Enter");
    const cleared = await terminal.waitForScreen((s) => / 0 tokens/.test(status(s)), "the figures reset");
    expect(status(cleared)).not.toMatch(/ctx [1-9]/);
    terminal.type("/cost");
    terminal.press("Enter");
    const costs = await terminal.waitFor("1,234 tokens");
    expect(costs).toMatch(/total\s+1,234 tokens/);
    expect(status(costs)).toMatch(/ 0 tokens/);
  }, 60_000);
});
