/**
 * A connection dropped mid-answer, in an 80x24 pane: the text streamed so far stays on the screen,
 * marked as cut; the retry is one line that counts in place ("retry 1 of 2", then "2 of 2"); when
 * every attempt breaks, the error says what to do and the unanswered message is back in the input.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { frames, messageStart } from "@attractor/llm/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { requestText, tmuxFixture } from "./support/tmux-fixture.js";

let requests = 0;
/** Requests from this one on are answered whole. */
let answerFrom = Number.POSITIVE_INFINITY;
/** Requests after the first fail before any byte (the connection breaks at once). */
let refuseRetries = false;

const fx = tmuxFixture(
  "dropped",
  async (req, res) => {
    await requestText(req);
    requests++;
    if (refuseRetries && requests > 1) {
      res.destroy();
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const text = (t: string) => ({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: t },
    });
    const events = [
      messageStart({ input_tokens: 100 }),
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      text("The first part of the answer, streamed before the connection broke. "),
      text(`Attempt ${requests} says hello.`),
    ];
    for (const f of frames(events)) res.write(f);
    if (requests >= answerFrom) {
      for (const f of frames([
        text(" And the rest of it."),
        { type: "content_block_stop", index: 0 },
        {
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 20 },
        },
        { type: "message_stop" },
      ]))
        res.write(f);
      res.end();
      return;
    }
    setTimeout(() => res.destroy(), 300);
  },
  {
    prepare: async (root) => {
      await mkdir(join(root, "attractor"), { recursive: true });
      await writeFile(
        join(root, "attractor", "settings.json"),
        JSON.stringify({ retry: { maxRetries: 2, baseDelayMs: 1500, maxDelayMs: 1500 } }),
      );
    },
  },
);

/** The lines of `screen` that speak of retrying. */
const retryLines = (screen: string) => screen.split("\n").filter((l) => /retr/i.test(l));
/** The screen's words with each run of spaces and line breaks as one space (lines wrap at 80). */
const flat = (screen: string) => screen.replace(/\s+/g, " ");
/** The input box's text line. */
const inputLine = (screen: string) =>
  screen
    .split("\n")
    .filter((l) => l.startsWith("│ ›"))
    .at(-1) ?? "";

describe("a connection dropped mid-answer", () => {
  it("keeps the text marked as cut, counts retries on one line, and gives the message back", async () => {
    requests = 0;
    answerFrom = Number.POSITIVE_INFINITY;
    const t = fx.start("dropped-all", undefined, undefined, { columns: 80, rows: 24 });
    await t.waitFor("Ask anything");
    t.type("please answer me");
    t.press("Enter");
    const first = await t.waitForScreen((s) => s.includes("retry 1 of 2"), "the first retry");
    expect(flat(first)).toContain("Attempt 1 says hello.");
    expect(first).toMatch(/cut off/);
    expect(retryLines(first)).toHaveLength(1);
    const second = await t.waitForScreen((s) => s.includes("retry 2 of 2"), "the second retry");
    expect(retryLines(second)).toHaveLength(1);
    const failed = await t.waitForScreen((s) => s.includes("send the message again"), "the failure");
    // Nothing counts any more: no line of a retry stays, and no other count was ever shown.
    expect(retryLines(failed)).toEqual([]);
    expect(t.history()).not.toMatch(/attempt \d+ of|\(\d+\/\d+\)|retry \d+…/i);
    // The first attempt's text is kept, marked once; the attempts after it started the same
    // answer again and are not kept once more.
    expect(flat(failed)).toContain("Attempt 1 says hello.");
    expect(flat(t.history())).not.toMatch(/Attempt [23] says/);
    expect(failed.split("\n").filter((l) => /cut off/.test(l))).toHaveLength(1);
    expect(inputLine(failed)).toMatch(/^│ › please answer me\s+│$/);
    // The message is sent again with Enter.
    answerFrom = 4;
    t.press("Enter");
    const answered = await t.waitFor("And the rest of it.");
    expect(flat(answered)).toContain("Attempt 4 says hello. And the rest of it.");
  }, 60_000);

  it("shows the whole answer once a retry gets it, the broken attempt's text kept above", async () => {
    requests = 0;
    answerFrom = 2;
    const t = fx.start("dropped-once", undefined, undefined, { columns: 80, rows: 24 });
    await t.waitFor("Ask anything");
    t.type("please answer me");
    t.press("Enter");
    const done = await t.waitFor("And the rest of it.");
    expect(flat(done)).toContain("Attempt 1 says hello.");
    expect(done).toMatch(/cut off/);
    expect(flat(done)).toContain("Attempt 2 says hello. And the rest of it.");
    expect(retryLines(done)).toEqual([]);
    expect(inputLine(done)).toContain("Ask anything");
  }, 60_000);

  it("counts the retries of a broken stream and of the connections after it as one series", async () => {
    requests = 0;
    answerFrom = Number.POSITIVE_INFINITY;
    refuseRetries = true;
    const t = fx.start("dropped-refused", undefined, undefined, { columns: 80, rows: 24 });
    // A retry of this test starts a session of the same name: this one must be gone by then.
    onTestFinished(() => t.kill());
    await t.waitFor("Ask anything");
    t.type("please answer me");
    t.press("Enter");
    // Every count the screen shows while the retries run, in order.
    const seen: string[] = [];
    const deadline = Date.now() + 30_000;
    let screen = "";
    while (Date.now() < deadline) {
      screen = t.screen();
      expect(retryLines(screen).length).toBeLessThanOrEqual(1);
      const count = /retry (\d+ of \d+)/.exec(screen)?.[1];
      if (count !== undefined && seen.at(-1) !== count) seen.push(count);
      if (screen.includes("send the message again")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    refuseRetries = false;
    // The broken stream's retry, then the connection's: 1, 2 of the same two.
    expect(seen).toEqual(["1 of 2", "2 of 2"]);
    expect(requests).toBe(3);
    expect(flat(screen)).toContain("Attempt 1 says hello.");
    expect(screen).toMatch(/cut off/);
    // The message comes back into the input once the failure is shown, possibly a frame later.
    const back = await t.waitForScreen(
      (s) => /please answer me/.test(inputLine(s)),
      "the message back in the input",
    );
    expect(inputLine(back)).toMatch(/^│ › please answer me\s+│$/);
  }, 60_000);
});
