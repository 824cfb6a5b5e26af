/**
 * `--continue` in the interactive UI, in a tmux pane: the stored conversation comes back with its
 * tool blocks (an edit's diff, a command's output) and the status line's tokens, cost and context
 * share, not only its text.
 */
import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { frames, streamEventsFor } from "@attractor/llm/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli } from "../src/testing/index.js";
import {
  anthropicTerminalEnv,
  startCliInTmux,
  type TmuxTerminal,
  terminalWorkspace,
} from "./support/tmux.js";

/** First request: fix the file; second: run a command; third: the answer. */
function startModel() {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const results = JSON.stringify(body.messages).split('"tool_result"').length - 1;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const events =
      results === 0
        ? streamEventsFor(
            [
              {
                type: "tool_use",
                id: "toolu_edit",
                name: "edit_file",
                input: { file_path: "math.js", old_string: "return a - b;", new_string: "return a + b;" },
              },
            ],
            "tool_use",
            { input: 40_000, output: 30 },
          )
        : results === 1
          ? streamEventsFor(
              [
                {
                  type: "tool_use",
                  id: "toolu_shell",
                  name: "shell",
                  input: { command: "echo checked-the-sum" },
                },
              ],
              "tool_use",
              { input: 45_000, output: 20 },
            )
          : streamEventsFor([{ type: "text", text: "Fixed the sum." }], "end_turn", {
              input: 50_000,
              output: 40,
            });
    for (const frame of frames(events)) res.write(frame);
    res.end();
  });
}

let root: string;
let project: string;
let server: Server;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-resume-"));
  await writeFile(join(project, "math.js"), "function add(a, b) {\n  return a - b;\n}\n");
  execFileSync("git", ["init", "-q"], { cwd: project });
  server = startModel();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});

afterEach(() => {
  terminal?.kill();
  terminal = undefined;
});

afterAll(async () => {
  server?.closeAllConnections();
  if (server) await new Promise((r) => server.close(r));
  if (root) await rm(root, { recursive: true, force: true });
});

describe("--continue in the interactive UI", () => {
  it("restores tool blocks with their diff and output, and the tokens, cost and context figures", async () => {
    const { port } = server.address() as AddressInfo;
    const env = anthropicTerminalEnv(root, port);
    const first = startCliInTmux("resume-first", project, env, ["--provider", "anthropic", "--mode", "yolo"]);
    terminal = first;
    await first.waitFor("Ask anything");
    first.type("fix the sum");
    first.press("Enter");
    const live = await first.waitFor("Fixed the sum.");
    expect(await readFile(join(project, "math.js"), "utf8")).toContain("return a + b;");
    const figures = /(\d[\d.]*k?) tokens · \$(\d+\.\d+) · ctx (\d+)%/.exec(
      await first.waitForScreen((s) => /ctx \d+%/.test(s), "the status line's figures"),
    );
    expect(figures).not.toBeNull();
    expect(live).toContain("+ ");
    first.type("/exit");
    first.press("Enter");
    await first.waitFor("resume it with");
    first.kill();

    const second = startCliInTmux("resume-second", project, env, ["--provider", "anthropic", "--continue"]);
    terminal = second;
    const restored = await second.waitFor("Fixed the sum.");
    // The edit's block with its diff, and the command's block with its output.
    expect(restored).toMatch(/Edit math\.js/);
    expect(restored).toContain("+1 −1");
    expect(restored).toMatch(/-\s*return a - b;/);
    expect(restored).toMatch(/\+\s*return a \+ b;/);
    expect(restored).toMatch(/Shell echo checked-the-sum/);
    expect(restored).toContain("checked-the-sum");
    expect(restored).toMatch(/exit 0 · \d+ ms/);
    // The same tokens, cost and context share as when the conversation was left.
    const status = await second.waitForScreen((s) => /ctx \d+%/.test(s), "the restored figures");
    expect(status).toContain(`${figures?.[1]} tokens · $${figures?.[2]} · ctx ${figures?.[3]}%`);

    // The restored calls can be viewed whole: the command's output, then (←) the edit's diff.
    second.press("C-o");
    const shell = await second.waitFor("call 2 of 2");
    expect(shell).toContain("Exit code: 0");
    second.press("Left");
    const edit = await second.waitFor("call 1 of 2");
    expect(edit).toMatch(/diff lines/);
    expect(edit).toContain("│ +return a + b;");
    second.press("Escape");
    await second.waitForScreen(
      (s) => s.includes("Ask anything") && !s.includes("call 1 of 2"),
      "the input back",
    );
  }, 90_000);
});
