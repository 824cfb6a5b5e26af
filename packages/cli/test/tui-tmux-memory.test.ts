/**
 * /memory in a real terminal: the built CLI runs in tmux, the user picks an instruction file, the
 * $EDITOR program gets the terminal and changes the file, and the UI comes back usable.
 */
import { chmod, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { requireBuiltCli } from "../src/testing/index.js";
import {
  anthropicTerminalEnv,
  startCliInTmux,
  type TmuxTerminal,
  terminalWorkspace,
  waitForFile,
} from "./support/tmux.js";

let root: string;
let project: string;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-memory-"));
  await writeFile(join(project, "AGENTS.md"), "project rules\n");
});

afterAll(async () => {
  terminal?.kill();
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe("/memory in tmux", () => {
  it("opens the chosen instruction file in $EDITOR and returns to a working UI", async () => {
    const editor = join(root, "editor.sh");
    await writeFile(editor, '#!/bin/sh\nprintf "edited in the editor\\n" >> "$1"\n');
    await chmod(editor, 0o755);
    // No model request is made: the server address is never used.
    const env = { ...anthropicTerminalEnv(root, 9), EDITOR: editor };
    terminal = startCliInTmux("memory", project, env, []);
    const { waitFor, type, press } = terminal;
    await waitFor("Ask anything");
    type("/memory");
    press("Enter");
    await waitFor("Instruction files");
    await waitFor(join(project, "AGENTS.md"));
    // The second entry: the project's AGENTS.md (the first is the user's own file).
    press("Down");
    press("Enter");
    await waitForFile(join(project, "AGENTS.md"), "project rules\nedited in the editor\n");
    await waitFor("Saved");
    await waitFor("Ask anything");
    type("/exit");
    press("Enter");
    await waitFor("resume it with");
  });
});
