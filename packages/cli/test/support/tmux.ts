import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_PATH } from "../../src/testing/index.js";

/** A tmux server of the test's own (its socket is private) with one session running a command. */
export interface TmuxTerminal {
  /** The visible screen, wrapped lines joined. */
  screen(): string;
  /** Types text literally. */
  type(text: string): void;
  /** Presses keys by tmux name (Enter, Escape, Down, C-u…). */
  press(...keys: string[]): void;
  /** Pastes text as the terminal does (bracketed, when the program asked for it). */
  paste(text: string): void;
  /** Polls the screen until `predicate` holds; fails with the last screen after `limitMs`. */
  waitForScreen(predicate: (text: string) => boolean, what: string, limitMs?: number): Promise<string>;
  /** Waits until the screen shows `text`. */
  waitFor(text: string): Promise<string>;
  kill(): void;
  /** Resizes the window (the program gets SIGWINCH). */
  resize(columns: number, rows: number): void;
  /** The scrollback and the screen, wrapped lines joined. */
  history(): string;
  /** Starts copying every byte the program writes to `file` (appended). */
  recordOutput(file: string): void;
  /** Stops copying the program's output. */
  stopRecording(): void;
}

/**
 * Starts the built command (or another entry file of it) in a tmux pane of `size` (120x45 by default) with only `env` for its environment (the pane
 * stays after the program exits, so its last words can be read).
 */
export function startCliInTmux(
  name: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
  args: readonly string[],
  entry: string = CLI_PATH,
  size: { readonly columns: number; readonly rows: number } = { columns: 120, rows: 45 },
): TmuxTerminal {
  const socket = `attractor-${name}-${process.pid}`;
  const tmux = (...a: string[]) =>
    execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...a], { encoding: "utf8" });
  const command = [
    "env",
    "-i",
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    process.execPath,
    entry,
    ...args,
  ]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(" ");
  tmux(
    "new-session",
    "-d",
    "-s",
    name,
    "-x",
    String(size.columns),
    "-y",
    String(size.rows),
    "-c",
    cwd,
    command,
  );
  tmux("set-option", "-t", name, "remain-on-exit", "on");
  const screen = () => tmux("capture-pane", "-p", "-J", "-t", name);
  const waitForScreen = async (predicate: (text: string) => boolean, what: string, limitMs = 20_000) => {
    const deadline = Date.now() + limitMs;
    let last = "";
    while (Date.now() < deadline) {
      last = screen();
      if (predicate(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; the screen was:\n${last}`);
  };
  return {
    screen,
    type: (text) => void tmux("send-keys", "-t", name, "-l", text),
    press: (...keys) => void tmux("send-keys", "-t", name, ...keys),
    paste: (text) => {
      execFileSync("tmux", ["-L", socket, "-f", "/dev/null", "load-buffer", "-b", "test-paste", "-"], {
        input: text,
      });
      tmux("paste-buffer", "-p", "-d", "-b", "test-paste", "-t", name);
    },
    waitForScreen,
    waitFor: (text) => waitForScreen((s) => s.includes(text), JSON.stringify(text)),
    resize: (columns, rows) =>
      void tmux("resize-window", "-t", name, "-x", String(columns), "-y", String(rows)),
    history: () => tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", name),
    recordOutput: (file) =>
      void tmux("pipe-pane", "-o", "-t", name, `cat >> '${file.replace(/'/g, "'\\''")}'`),
    stopRecording: () => void tmux("pipe-pane", "-t", name),
    kill: () => {
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
    },
  };
}

/** Polls a file until it holds `content` (or, with `null`, until it is gone). */
export async function waitForFile(path: string, content: string | null, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  let last: string | null = "";
  while (Date.now() < deadline) {
    last = await readFile(path, "utf8").catch(() => null);
    if (last === content) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} holds ${JSON.stringify(last)}, not ${JSON.stringify(content)}`);
}

/** A temporary root holding an empty `project` directory and a `user` home for a terminal test. */
export async function terminalWorkspace(prefix: string): Promise<{ root: string; project: string }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const project = join(root, "project");
  await mkdir(project, { recursive: true });
  await mkdir(join(root, "user"), { recursive: true });
  return { root, project };
}

/** The whole environment of the command under test: the workspace's homes and a local Anthropic server. */
export function anthropicTerminalEnv(root: string, port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "user"),
    ATTRACTOR_HOME: join(root, "attractor"),
    ANTHROPIC_API_KEY: "test-key-not-real",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
  };
}
