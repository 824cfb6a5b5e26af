/**
 * /compact says what happened in one line: the tokens before and after when the earlier turns
 * were summarised, or that nothing was compacted and why when the summary failed — never a
 * success beside a failure, and no second line about the same compaction.
 */
import { errorBody, streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

/** How the server answers the summary request. */
let summary: "answer" | "fail" = "answer";
let answers = 0;
/** The input tokens each answer reports (the context a request filled). */
let inputTokens = 1000;
/** How often the answers after the first repeat their words. */
let repeats = 200;

const fx = tmuxFixture("compact", async (req, res) => {
  const body = await requestText(req);
  if (!body.includes("You compress the older part")) {
    // The first answer is short (the recent turns keep it verbatim), the second long enough
    // that the older turns are worth a summary.
    answers++;
    const words = "Words to keep. ".repeat(answers === 1 ? 10 : repeats);
    sendEvents(
      res,
      streamEventsFor([{ type: "text", text: `Answer ${answers}. ${words}` }], "end_turn", {
        input: inputTokens,
        output: 200,
      }),
    );
    return;
  }
  if (summary === "fail") {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify(errorBody("invalid_request_error", "summary refused by the test server")));
    return;
  }
  sendEvents(
    res,
    streamEventsFor([{ type: "text", text: "## Decisions\nKeep words.\n## Next\nGo on." }], "end_turn", {
      input: 900,
      output: 20,
    }),
  );
});

/** The transcript's lines about compacting, from `screen`. */
const compactLines = (screen: string) =>
  screen.split("\n").filter((l) => /compact|summar/i.test(l) && !l.includes("/compact"));

describe("/compact in tmux", () => {
  it("says in one line that nothing was compacted and why, or what shrank and by how much", async () => {
    const terminal = fx.start("compact");
    await terminal.waitFor("Ask anything");
    terminal.type("explain the words");
    terminal.press("Enter");
    await terminal.waitFor("Answer 1.");
    await terminal.waitForScreen((s) => s.includes("1.2k tokens"), "the tokens counted");
    const compact = async (expected: string) => {
      terminal.type("/compact");
      terminal.press("Enter");
      await terminal.waitFor(expected);
      // A moment for any other line about the same compaction to show.
      await new Promise((r) => setTimeout(r, 500));
      return compactLines(terminal.history());
    };

    // A short chat: the recent turns are all there is.
    let lines = await compact("Nothing compacted");
    expect(lines).toEqual([
      "! Nothing compacted (1.2k tokens in use): nothing older than the recent turns to summarise.",
    ]);

    terminal.type("more words please");
    terminal.press("Enter");
    await terminal.waitFor("Answer 2.");
    summary = "fail";
    lines = await compact("summary refused");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^! Nothing compacted \(1\.2k tokens in use\): .*summary refused by the test server\.?$/,
    );

    // The figures as counted: the provider's count before, an estimate (prompt and tools
    // included, which this test server's small count leaves out) after.
    summary = "answer";
    lines = await compact("Compacted the conversation");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(
      /^✓ Compacted the conversation: 1\.2k → [\d.]+k? tokens \(earlier turns summarised\)\.$/,
    );
  }, 60_000);

  it("updates the status line's context share at once after /compact and /clear", async () => {
    answers = 0;
    summary = "answer";
    // A model the catalog does not list has a window of 200k tokens: each request fills 20% of
    // it, and the answers are long enough that the older ones are summarised.
    inputTokens = 40_000;
    repeats = 2000;
    const terminal = fx.start("compact-status", [
      "--provider",
      "anthropic",
      "--model",
      "claude-unlisted-test",
    ]);
    await terminal.waitFor("Ask anything");
    const status = () =>
      terminal
        .screen()
        .split("\n")
        .find((l) => l.includes("shift+tab mode")) ?? "";
    for (const [message, answer] of [
      ["explain the words", "Answer 1."],
      ["more words please", "Answer 2."],
      ["and more", "Answer 3."],
    ]) {
      terminal.type(message);
      terminal.press("Enter");
      // A long answer scrolls its first line off the screen: the scrollback has it.
      await terminal.waitForScreen(() => terminal.history().includes(answer), answer);
    }
    await terminal.waitForScreen(() => / ctx 20%/.test(status()), "the context share of the last answer");
    terminal.type("/compact");
    terminal.press("Enter");
    const line = await terminal.waitForScreen(
      (s) => /Compacted the conversation: \S+ → ([\d.]+)k tokens/.test(s),
      "the compaction's line",
    );
    // No request since: the share is the compacted history's estimate, shown with the line.
    const after = Number(/Compacted the conversation: \S+ → ([\d.]+)k tokens/.exec(line)?.[1]) * 1000;
    const share = Number(/ ctx (\d+)%/.exec(status())?.[1]);
    expect(share).toBeLessThan(20);
    expect(Math.abs(share - (after / 200_000) * 100)).toBeLessThanOrEqual(1);
    terminal.type("/clear");
    terminal.press("Enter");
    await terminal.waitForScreen(() => / 0 tokens/.test(status()), "the figures reset");
    expect(status()).not.toMatch(/ctx \d/);
    repeats = 200;
    inputTokens = 1000;
  }, 60_000);
});
