/**
 * A large bracketed paste at 80x24: five thousand lines with newlines stand in the input as one
 * placeholder (no newline sends the draft), the model gets every line, and the transcript shows
 * the message as the input did: the paste's placeholder, not five thousand lines pushing the
 * conversation out of the scrollback.
 */
import { streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const bodies: string[] = [];
const fx = tmuxFixture("paste", async (req, res) => {
  bodies.push(await requestText(req));
  sendEvents(
    res,
    streamEventsFor([{ type: "text", text: "Read your log." }], "end_turn", { input: 10, output: 5 }),
  );
});

const LINES = 5000;
const LOG = Array.from({ length: LINES }, (_, i) => `log line ${i + 1} of the pasted output`).join("\n");

describe("a large paste in tmux", () => {
  it("stays one placeholder in the input and in the transcript; the model gets it whole", async () => {
    const terminal = fx.start("paste", undefined, undefined, { columns: 80, rows: 24 });
    await terminal.waitFor("Ask anything");
    terminal.type("why does this fail: ");
    terminal.paste(LOG);
    await terminal.waitFor(`[Pasted text #1 +${LINES - 1} lines]`);
    terminal.type(" thanks");
    // Nothing was sent by the paste's newlines.
    expect(bodies).toHaveLength(0);
    terminal.press("Enter");
    await terminal.waitFor("Read your log.");
    const sent = JSON.stringify(JSON.parse(bodies.at(-1) ?? "{}").messages.at(-1));
    expect(sent).toContain("why does this fail: log line 1 of the pasted output");
    expect(sent).toContain(`log line ${LINES} of the pasted output thanks`);
    const history = terminal.history();
    expect(history).toContain(`› why does this fail: [Pasted text #1 +${LINES - 1} lines] thanks`);
    expect(history).not.toContain("log line 2 of");
    // The banner is still in the scrollback, above the message.
    expect(history).toContain("│ attractor");
  }, 60_000);
});
