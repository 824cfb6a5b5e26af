/**
 * The sandbox prompt in a real terminal: the built CLI runs in tmux (yolo mode, so no permission
 * prompt comes first) against a scripted Anthropic server; the model writes outside the project,
 * the sandbox blocks it, the user answers "once", and the command runs again outside.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeBubblewrap } from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli, type ScriptedModel, startScriptedModel } from "../src/testing/index.js";
import { startCliInTmux, type TmuxTerminal } from "./support/tmux.js";

const status = await probeBubblewrap();
const reason = status.available ? "" : ` (skipped: ${status.reason})`;

let root: string;
let project: string;
let outside: string;
let model: ScriptedModel;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  // Not under /tmp: sandboxed commands get a private /tmp, where "outside" would not even exist.
  root = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "attractor-tmux-sandbox-"));
  project = join(root, "project");
  outside = join(root, "outside");
  for (const dir of [project, outside, join(root, "user")]) await mkdir(dir, { recursive: true });
  model = await startScriptedModel("anthropic");
});

afterAll(async () => {
  terminal?.kill();
  await model?.close();
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe.skipIf(!status.available)(`the sandbox prompt in tmux${reason}`, () => {
  it("asks to re-run a blocked command outside the sandbox and runs it once allowed", async () => {
    const target = join(outside, "from-tmux.txt");
    model.script([
      { calls: [{ name: "shell", args: { command: `touch ${target} && echo written` } }] },
      { text: "The file is written." },
    ]);
    terminal = startCliInTmux(
      "sandbox",
      project,
      {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: join(root, "user"),
        ATTRACTOR_HOME: join(root, "attractor"),
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
        ...model.env(),
      },
      ["--provider", "anthropic", "--mode", "yolo"],
    );
    const { waitFor, screen } = terminal;
    await waitFor("Ask anything");
    expect(screen()).not.toContain("sandbox cannot run");
    terminal.type("Write the file outside");
    terminal.press("Enter");

    const prompt = await waitFor("The sandbox blocked a command.");
    expect(prompt).toContain("It tried to write outside the project.");
    expect(prompt).toContain("Read-only file system");
    expect(existsSync(target)).toBe(false);
    terminal.press("y");

    await waitFor("The file is written.");
    expect(existsSync(target)).toBe(true);
    const results = model.seen().at(-1)?.toolResults ?? [];
    expect(results.at(-1)).toContain("[The user let this command run outside the sandbox.]");
  });
});
