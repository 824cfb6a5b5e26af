/**
 * A resumed conversation longer than the replay cap (5000 items) in a tmux pane: its oldest items
 * are counted in one line that names /history, and /history prints the whole conversation, the
 * user's first message included.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Turn } from "@attractor/agent";
import { streamEventsFor } from "@attractor/llm/testing";
import { createSessionStore, packTurn } from "@attractor/runtime/store";
import { describe, expect, it } from "vitest";
import { sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

/** Exchanges stored: two items each, 200 past the cap. */
const EXCHANGES = 2600;
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

const fx = tmuxFixture(
  "history",
  (_req, res) =>
    sendEvents(res, streamEventsFor([{ type: "text", text: "ok" }], "end_turn", { input: 1, output: 1 })),
  {
    prepare: async (root, project) => {
      const store = createSessionStore({ home: join(root, "attractor"), durable: false });
      const writer = await store.create(project, { model: "claude-sonnet-4-5" });
      const timestamp = new Date().toISOString();
      for (let i = 1; i <= EXCHANGES; i++) {
        const user: Turn = { kind: "user", content: `question number ${i}`, timestamp };
        const answer: Turn = {
          kind: "assistant",
          content: `answer number ${i}`,
          toolCalls: [],
          parts: [],
          usage,
          timestamp,
        } as Turn;
        await writer.append("turn", { turn: packTurn(user) });
        await writer.append("turn", { turn: packTurn(answer) });
      }
      await writer.close();
    },
  },
);

/** Whether the program's output shows the item `text` with the number `n` (not 10, 100…). */
const shows = (output: string, text: string, n: number) => new RegExp(`${text} ${n}(?!\\d)`).test(output);

describe("a resumed conversation past the replay cap", () => {
  it("counts its oldest items in a line naming /history, which prints all of it", async () => {
    const terminal = fx.start("history", ["--provider", "anthropic", "--continue"], undefined, {
      columns: 100,
      rows: 30,
    });
    // The scrollback keeps fewer lines than the conversation has: what the program writes is read.
    const record = join(fx.root, "history.out");
    terminal.recordOutput(record);
    await terminal.waitFor("Ask anything");
    await terminal.waitForScreen((s) => s.includes(`answer number ${EXCHANGES}`), "the latest answer");
    const resumed = await readFile(record, "utf8");
    expect(resumed).toContain("… 200 earlier items not shown: /history shows them");
    expect(shows(resumed, "question number", 1)).toBe(false);
    expect(shows(resumed, "question number", 101)).toBe(true);

    terminal.type("/history");
    terminal.press("Enter");
    const deadline = Date.now() + 60_000;
    let reprinted = "";
    while (Date.now() < deadline) {
      reprinted = (await readFile(record, "utf8")).slice(resumed.length);
      if (shows(reprinted, "answer number", EXCHANGES)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(shows(reprinted, "question number", 1)).toBe(true);
    expect(shows(reprinted, "answer number", 1)).toBe(true);
    expect(shows(reprinted, "answer number", EXCHANGES)).toBe(true);
    expect(reprinted).not.toContain("earlier items not shown");
  }, 90_000);
});
