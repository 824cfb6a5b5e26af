/**
 * Steering and /rewind in a real terminal: the built CLI runs inside tmux against a local server
 * speaking the Anthropic Messages protocol. While a slow shell command runs, a message typed and
 * sent with Enter steers the agent (the next request carries it); then /rewind takes the files and
 * the conversation back to before the first message and gives its text back in the input.
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { frames, streamEventsFor } from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli } from "../src/testing/index.js";
import {
  anthropicTerminalEnv,
  startCliInTmux,
  type TmuxTerminal,
  terminalWorkspace,
  waitForFile,
} from "./support/tmux.js";

const SLOW_COMMAND = "sleep 3 && echo note > note.txt";

/**
 * First request: a slow shell call; after its result: an answer saying whether it was steered;
 * to "Just say hi": "Hi.".
 */
function startModel() {
  const bodies: { messages: unknown[] }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    bodies.push(body);
    const sent = JSON.stringify(body.messages);
    const events = sent.includes("Just say hi")
      ? streamEventsFor([{ type: "text", text: "Hi." }], "end_turn", { input: 200, output: 2 })
      : sent.includes("tool_result")
        ? streamEventsFor(
            [{ type: "text", text: sent.includes("Also say bananas") ? "Noted, and bananas." : "Noted." }],
            "end_turn",
            { input: 300, output: 10 },
          )
        : streamEventsFor(
            [
              { type: "text", text: "Writing the note slowly." },
              { type: "tool_use", id: "toolu_slow_1", name: "shell", input: { command: SLOW_COMMAND } },
            ],
            "tool_use",
            { input: 250, output: 30 },
          );
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const frame of frames(events)) res.write(frame);
    res.end();
  });
  return { server, bodies };
}

let root: string;
let project: string;
let server: Server;
let bodies: { messages: unknown[] }[];
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-steer-"));
  ({ server, bodies } = startModel());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});

afterAll(async () => {
  terminal?.kill();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe("steering and /rewind in tmux", () => {
  it("steers a running turn with Enter, then rewinds files and conversation to before the message", {
    timeout: 90_000,
  }, async () => {
    const { port } = server.address() as AddressInfo;
    terminal = startCliInTmux("steer", project, anthropicTerminalEnv(root, port), [
      "--provider",
      "anthropic",
      "--mode",
      "yolo",
    ]);

    const { waitFor, type, press } = terminal;

    await waitFor("Ask anything");
    type("Write a note slowly");
    press("Enter");
    await waitFor("Writing the note slowly.");
    // The shell command is running: a message sent now steers the turn.
    await waitFor("Enter steers the agent now");
    type("Also say bananas");
    press("Enter");
    await waitFor("steering: Also say bananas");
    await waitFor("Noted, and bananas.");
    await waitForFile(join(project, "note.txt"), "note\n");
    expect(bodies).toHaveLength(2);
    expect(JSON.stringify(bodies[1]?.messages)).toContain("Also say bananas");

    type("/rewind");
    press("Enter");
    const list = await waitFor("Rewind to before which message?");
    expect(list).toContain("“Write a note slowly”");
    press("Enter");
    await waitFor("Restore what?");
    press("Enter"); // Code and conversation
    const preview = await waitFor("Restore 1 file and rewind the conversation?");
    expect(preview).toContain("note.txt");
    type("y");
    await waitFor("Rewound the conversation");
    // The notice and the restored draft may reach the screen in two frames.
    const after = await waitFor("› Write a note slowly");
    await waitForFile(join(project, "note.txt"), null);
    expect(existsSync(join(project, "note.txt"))).toBe(false);
    // The screen was reprinted without the rewound turns, and the message is back in the input.
    expect(after).not.toContain("Noted, and bananas.");
    expect(after).toContain("Rewound the conversation");

    // What is sent next continues from before the message.
    press("C-u");
    type("Just say hi");
    press("Enter");
    await waitFor("Hi.");
    expect(bodies).toHaveLength(3);
    const third = JSON.stringify(bodies[2]?.messages);
    expect(third).toContain("Just say hi");
    expect(third).not.toContain("Write a note slowly");
    expect(third).not.toContain("bananas");
  });
});
