import { spawn } from "node:child_process";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** How long a clipboard program may take to read the text before it is given up on. */
const PROGRAM_LIMIT_MS = 3000;

/**
 * OSC 52: asks the terminal to put `text` on the system clipboard. It works over SSH and inside
 * tmux (with set-clipboard on) where no clipboard program can reach the user's desktop.
 */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
}

/** A program that puts its standard input on the clipboard, and when it applies. */
interface ClipboardProgram {
  readonly command: string;
  readonly args: readonly string[];
  readonly applies: (env: NodeJS.ProcessEnv, platform: NodeJS.Platform) => boolean;
}

const PROGRAMS: readonly ClipboardProgram[] = [
  { command: "pbcopy", args: [], applies: (_env, platform) => platform === "darwin" },
  { command: "wl-copy", args: [], applies: (env) => Boolean(env.WAYLAND_DISPLAY) },
  { command: "xclip", args: ["-selection", "clipboard"], applies: (env) => Boolean(env.DISPLAY) },
  { command: "xsel", args: ["--clipboard", "--input"], applies: (env) => Boolean(env.DISPLAY) },
];

/**
 * Puts `text` on the clipboard with the first clipboard program of the desktop that is installed
 * and succeeds (pbcopy, wl-copy, xclip, xsel); resolves with its name, or undefined when none did.
 */
export async function copyWithProgram(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  for (const program of PROGRAMS) {
    if (!program.applies(env, platform)) continue;
    if (await runWithInput(program.command, program.args, text, env)) return program.command;
  }
  return undefined;
}

/** Whether `command` ran, read `input` and exited 0 within the limit (a missing program is false). */
function runWithInput(
  command: string,
  args: readonly string[],
  input: string,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ["pipe", "ignore", "ignore"], detached: false });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(false);
    }, PROGRAM_LIMIT_MS);
    child.on("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}

/** Writes `text` to `path` whole (a temporary file renamed over it), creating its folder. */
export async function saveCopy(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, path);
}
