/**
 * /memory in a real terminal: the built CLI runs in tmux, the user picks an instruction file, the
 * $EDITOR program gets the terminal as a shell would give it (no paste markers, no enhanced key
 * encodings, echo on) and changes the file, and the UI comes back usable with its modes again.
 */
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
    const stty = join(root, "editor-stty.txt");
    await writeFile(
      editor,
      `#!/bin/sh\nprintf 'EDITOR-RUNNING\\n'\nstty -a > '${stty}'\nprintf "edited in the editor\\n" >> "$1"\n`,
    );
    await chmod(editor, 0o755);
    // No model request is made: the server address is never used.
    const env = { ...anthropicTerminalEnv(root, 9), EDITOR: editor };
    terminal = startCliInTmux("memory", project, env, []);
    const { waitFor, type, press } = terminal;
    const record = join(root, "memory.out");
    terminal.recordOutput(record);
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
    // What the editor was given: the modes as the bytes before it left them, and the tty's settings.
    const bytes = await readFile(record, "latin1");
    const started = bytes.indexOf("EDITOR-RUNNING");
    expect(started).toBeGreaterThan(0);
    const last = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].at(-1)?.[1];
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the modes' sequences start with ESC
    const paste = /\x1b\[\?2004([hl])/g;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the modes' sequences start with ESC
    const keys = /\x1b\[>4;(\d+)m/g;
    expect(last(bytes.slice(0, started), paste)).toBe("l");
    expect(last(bytes.slice(0, started), keys)).toBe("0");
    expect((await readFile(stty, "utf8")).split(/\s+/)).toContain("icanon");
    // Taken again once the editor is done.
    expect(last(bytes.slice(started), paste)).toBe("h");
    expect(last(bytes.slice(started), keys)).toBe("2");
    type("/exit");
    press("Enter");
    await waitFor("resume it with");
  });
});
