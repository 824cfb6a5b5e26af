/**
 * A large bracketed paste at 80x24: five thousand lines with newlines stand in the input as one
 * placeholder (no newline sends the draft), the model gets every line, and the transcript shows
 * the message as the input did: the paste's placeholder, not five thousand lines pushing the
 * conversation out of the scrollback.
 */
import { errorBody, streamEventsFor } from "@attractor/llm/testing";
import { describe, expect, it } from "vitest";
import { requestText, sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

const bodies: string[] = [];
/** Requests refused (a 400 is not retried: the turn fails) before the server answers again. */
let refusals = 0;
const fx = tmuxFixture("paste", async (req, res) => {
  bodies.push(await requestText(req));
  if (refusals > 0) {
    refusals--;
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify(errorBody("invalid_request_error", "refused by the test server")));
    return;
  }
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

  it("gives a failed message back as it was typed: the paste collapsed again, and sent whole", async () => {
    const terminal = fx.start("paste-failed", undefined, undefined, { columns: 80, rows: 24 });
    await terminal.waitFor("Ask anything");
    refusals = 1;
    terminal.paste(LOG);
    terminal.type(" explain");
    await terminal.waitFor(`[Pasted text #1 +${LINES - 1} lines] explain`);
    terminal.press("Enter");
    await terminal.waitFor("refused by the test server");
    // The input gets it back in the frame after the error's.
    await terminal.waitFor(`│ › [Pasted text #1 +${LINES - 1} lines] explain`);
    terminal.press("Enter");
    await terminal.waitFor("Read your log.");
    const sent = JSON.stringify(JSON.parse(bodies.at(-1) ?? "{}").messages.at(-1));
    expect(sent).toContain(`log line ${LINES} of the pasted output explain`);
  }, 60_000);
});
