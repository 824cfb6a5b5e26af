/**
 * The interactive UI in a real terminal: the built CLI runs inside tmux against a local server
 * speaking the Anthropic Messages protocol. A person's session is replayed: type a task, watch
 * the answer stream in, approve the edit in the permission prompt, see the file change, /undo,
 * see the file restored, /exit.
 */
import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
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

/** A Messages API server: the first answer streams half its text, waits for `release`, then asks to edit. */
function startModel(release: Promise<void>) {
  const bodies: unknown[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    bodies.push(body);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const hasResult = JSON.stringify(body.messages).includes("tool_result");
    const events = hasResult
      ? streamEventsFor([{ type: "text", text: "Done: greeting.txt now says hello, world." }], "end_turn", {
          input: 300,
          output: 20,
        })
      : streamEventsFor(
          [
            { type: "text", text: "I will update the greeting file now." },
            {
              type: "tool_use",
              id: "toolu_edit_1",
              name: "edit_file",
              input: { file_path: "greeting.txt", old_string: "hello", new_string: "hello, world" },
            },
          ],
          "tool_use",
          { input: 250, output: 40 },
        );
    const all = frames(events);
    // message_start, block start, ping, first text piece: then the stream pauses mid-sentence.
    const pauseAfter = hasResult ? all.length : 4;
    for (const [i, frame] of all.entries()) {
      if (i === pauseAfter) await release;
      res.write(frame);
    }
    res.end();
  });
  return { server, bodies };
}

let root: string;
let project: string;
let server: Server;
let bodies: unknown[];
let releaseStream: () => void;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-"));
  await writeFile(join(project, "greeting.txt"), "hello\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: project });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "init");
  const release = new Promise<void>((r) => {
    releaseStream = r;
  });
  ({ server, bodies } = startModel(release));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});

afterAll(async () => {
  releaseStream?.();
  terminal?.kill();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the interactive UI in tmux", () => {
  it("streams an answer, asks before an edit, applies it, and /undo restores the file", async () => {
    const { port } = server.address() as AddressInfo;
    terminal = startCliInTmux("tui", project, anthropicTerminalEnv(root, port), ["--provider", "anthropic"]);
    const { waitFor, screen } = terminal;
    const type = (text: string) => terminal?.type(text);
    const press = (...keys: string[]) => terminal?.press(...keys);

    await waitFor("Ask anything");
    type("Make the greeting say hello, world");
    await waitFor("Make the greeting say hello, world");
    press("Enter");

    // The first words are on screen while the model is still streaming the sentence.
    const partial = await waitFor("I will");
    expect(partial).not.toContain("greeting file now.");
    releaseStream();
    await waitFor("greeting file now.");

    // The permission prompt for the edit shows the change as a diff.
    const prompt = await waitFor("Change files?");
    expect(prompt).toContain("edit_file greeting.txt");
    expect(prompt).toMatch(/1 - hello/);
    expect(prompt).toMatch(/1 \+ hello, world/);
    expect(await readFile(join(project, "greeting.txt"), "utf8")).toBe("hello\n");
    press("y");

    await waitFor("Done: greeting.txt now says hello, world.");
    await waitForFile(join(project, "greeting.txt"), "hello, world\n");
    const afterEdit = screen();
    expect(afterEdit).toMatch(/Edit greeting\.txt/);
    expect(afterEdit).toContain("+1 −1");

    type("/undo");
    press("Enter");
    await waitFor("Undid the last change: greeting.txt");
    await waitForFile(join(project, "greeting.txt"), "hello\n");

    type("/exit");
    press("Enter");
    await waitFor("is stored; resume it with: attractor --resume");
    expect(bodies).toHaveLength(2);
  });
});
