/**
 * The terminal given back: Ctrl+Z (and a SIGTSTP sent from outside) stops the UI with the cursor
 * shown, bracketed paste, modifyOtherKeys and kitty's key flags off, so the shell reads keys and
 * pastes as usual; `fg` takes them again (kitty's flags too, when the terminal had answered the
 * query) and the UI goes on. An uncaught error gives the terminal back before its report is
 * printed: cursor shown, modes off, echo and line editing on again.
 *
 * The UI runs under an interactive `sh` in one tmux server of this file's own; every byte the
 * program writes is recorded, and the modes are read back from it as a terminal would track them.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { streamEventsFor } from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH } from "../src/testing/index.js";
import { sendEvents, tmuxFixture } from "./support/tmux-fixture.js";

let answers = 0;
const fx = tmuxFixture("suspend", (_req, res) => {
  answers++;
  sendEvents(
    res,
    streamEventsFor([{ type: "text", text: `Answer number ${answers}.` }], "end_turn", {
      input: 10,
      output: 5,
    }),
  );
});

const socket = `attractor-suspend-${process.pid}`;
const tmux = (...args: string[]) =>
  execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;

beforeAll(() => {
  // The server's first session only keeps it alive; each test has a window of its own.
  tmux("new-session", "-d", "-s", "keep", "-x", "100", "-y", "30", "sleep 600");
});
afterAll(() => {
  try {
    tmux("kill-server");
  } catch {
    // Already gone.
  }
});

/** A window running an interactive `sh` (job control on) with the test's environment; all output recorded. */
function shellWindow(name: string, env: Record<string, string>) {
  const record = join(fx.root, `${name}.out`);
  const command = [
    "env",
    "-i",
    ...Object.entries({ ...env, PS1: "$ " }).map(([k, v]) => `${k}=${v}`),
    "sh",
    "-i",
  ]
    .map(quote)
    .join(" ");
  tmux("new-window", "-d", "-n", name, "-c", fx.project, "-t", "keep", command);
  tmux("set-option", "-w", "-t", `keep:${name}`, "remain-on-exit", "on");
  tmux("pipe-pane", "-o", "-t", `keep:${name}`, `cat >> ${quote(record)}`);
  const target = `keep:${name}`;
  const screen = () => tmux("capture-pane", "-p", "-J", "-t", target);
  const waitFor = async (predicate: (text: string) => boolean, what: string, limitMs = 20_000) => {
    const deadline = Date.now() + limitMs;
    let last = "";
    while (Date.now() < deadline) {
      last = screen();
      if (predicate(last)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}; the screen was:\n${last}`);
  };
  const output = async () => readFile(record, "latin1").catch(() => "");
  return {
    screen,
    type: (text: string) => void tmux("send-keys", "-t", target, "-l", text),
    press: (...keys: string[]) => void tmux("send-keys", "-t", target, ...keys),
    waitFor,
    output,
    /** Waits until the recorded output holds `text` (after the first `after` bytes). */
    async waitForOutput(text: string, after = 0, limitMs = 20_000): Promise<string> {
      const deadline = Date.now() + limitMs;
      while (Date.now() < deadline) {
        const bytes = await output();
        if (bytes.indexOf(text, after) >= 0) return bytes;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`timed out waiting for ${JSON.stringify(text)} in the output`);
    },
    cursorShown: () => tmux("display-message", "-p", "-t", target, "#{cursor_flag}").trim() === "1",
  };
}

/** A regular expression for a control sequence: `pattern` follows the ESC. */
const sequence = (pattern: string) => new RegExp(`\x1b${pattern}`, "g");

/** The modes a terminal is left in by `bytes`, as it tracks them. */
function modesAfter(bytes: string) {
  const last = (pattern: RegExp): string | undefined => [...bytes.matchAll(pattern)].at(-1)?.[1];
  let kittyDepth = 0;
  for (const m of bytes.matchAll(sequence("\\[([<>])\\d*u")))
    kittyDepth = Math.max(0, kittyDepth + (m[1] === ">" ? 1 : -1));
  return {
    cursorHidden: last(sequence("\\[\\?25([hl])")) === "l",
    bracketedPaste: last(sequence("\\[\\?2004([hl])")) === "h",
    modifyOtherKeys: (last(sequence("\\[>4;(\\d+)m")) ?? "0") !== "0",
    kittyDepth,
  };
}

/** The text of a file another process writes, once it has some. */
async function fileWithText(path: string, limitMs = 10_000): Promise<string> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const text = await readFile(path, "utf8").catch(() => "");
    if (text.trim() !== "" || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const OFF = { cursorHidden: false, bracketedPaste: false, modifyOtherKeys: false, kittyDepth: 0 };

/** The command line that starts the built CLI against this file's model server. */
function cliCommand(extraEnv: Record<string, string> = {}): string {
  return [
    ...Object.entries(extraEnv).map(([k, v]) => `${k}=${quote(v)}`),
    quote(process.execPath),
    quote(CLI_PATH),
    "--provider",
    "anthropic",
  ].join(" ");
}

/** A module loaded before the CLI: it writes the process id to a file and throws on SIGUSR2. */
async function preload(name: string): Promise<{ readonly module: string; readonly pidFile: string }> {
  const module = join(fx.root, `${name}.mjs`);
  const pidFile = join(fx.root, `${name}.pid`);
  await writeFile(
    module,
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nprocess.on("SIGUSR2", () => { throw new Error("deliberate crash"); });\n`,
  );
  return { module, pidFile };
}

describe("suspend, continue and crash in tmux", () => {
  it("Ctrl+Z gives the terminal back (kitty flags popped); fg takes it again and the UI goes on", async () => {
    const shell = shellWindow("ctrlz", fx.env());
    await shell.waitFor((s) => s.includes("$ "), "the shell's prompt");
    const { module, pidFile } = await preload("ctrlz");
    shell.type(cliCommand({ NODE_OPTIONS: `--import=${module}` }));
    shell.press("Enter");
    // The terminal answers the query as kitty would; the flag is pushed when the answer comes.
    // It answers at once, as a terminal does: most likely before the first frame.
    await shell.waitForOutput("\x1b[?u");
    shell.type("\x1b[?0u");
    const started = await shell.waitForOutput("\x1b[>1u");
    await shell.waitFor((s) => s.includes("Ask anything"), "the UI");
    expect(modesAfter(started)).toMatchObject({ bracketedPaste: true, modifyOtherKeys: true, kittyDepth: 1 });

    // A repeated answer to the query is no key: it never lands in the draft.
    shell.type("draft \x1b[?1u");
    shell.type("kept");
    await shell.waitFor((s) => s.includes("draft kept"), "the draft");
    expect(shell.screen()).not.toMatch(/\[\?\d*u/);
    shell.press("C-z");
    await shell.waitFor((s) => /Stopped/.test(s), "the shell's job message");
    const stopped = await shell.output();
    expect(modesAfter(stopped)).toEqual(OFF);
    expect(shell.cursorShown()).toBe(true);
    // The shell reads keys as keys: a command typed now runs.
    shell.type("echo shell-works");
    shell.press("Enter");
    await shell.waitFor((s) => s.includes("\nshell-works"), "the shell to run a command");

    const before = (await shell.output()).length;
    shell.type("fg");
    shell.press("Enter");
    const resumed = await shell.waitForOutput("\x1b[>1u", before);
    expect(modesAfter(resumed)).toMatchObject({ bracketedPaste: true, modifyOtherKeys: true, kittyDepth: 1 });
    await shell.waitFor((s) => s.includes("draft kept"), "the UI drawn again with its draft");
    // Keys reach the UI again, and Shift+Enter (kitty's form) is still a new line.
    shell.type("\x1b[13;2u");
    shell.type("after fg");
    shell.press("Enter");
    await shell.waitFor((s) => s.includes(`Answer number ${answers}.`) && answers > 0, "an answer");

    // A SIGTSTP from outside stops it the same way.
    process.kill(Number(await readFile(pidFile, "utf8")), "SIGTSTP");
    await shell.waitFor((s) => (s.match(/Stopped/g) ?? []).length >= 2, "the second stop");
    expect(modesAfter(await shell.output())).toEqual(OFF);
    expect(shell.cursorShown()).toBe(true);
    shell.type("fg");
    shell.press("Enter");
    await shell.waitFor((s) => s.includes("Ask anything"), "the UI again");
    shell.press("C-d");
    shell.press("C-d");
    await shell.waitFor((s) => s.includes("resume it with"), "the exit");
    expect(modesAfter(await shell.output())).toEqual(OFF);
  }, 90_000);

  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGINT", 130],
  ] as const) {
    it(`${signal} from outside gives the terminal back (kitty flags popped) and exits with ${code}`, async () => {
      const { module, pidFile } = await preload(signal.toLowerCase());
      const stty = join(fx.root, `${signal}.stty`);
      const shell = shellWindow(signal.toLowerCase(), fx.env());
      await shell.waitFor((s) => s.includes("$ "), "the shell's prompt");
      // `sh -c`: nothing between the exit and `stty` sets the terminal's modes.
      shell.type(
        `sh -c ${quote(`${cliCommand({ NODE_OPTIONS: `--import=${module}` })}; echo "exit=$?"; stty -a > ${quote(stty)}`)}`,
      );
      shell.press("Enter");
      await shell.waitForOutput("\x1b[?u");
      shell.type("\x1b[?0u");
      const started = await shell.waitForOutput("\x1b[>1u");
      await shell.waitFor((s) => s.includes("Ask anything"), "the UI");
      expect(modesAfter(started)).toMatchObject({
        bracketedPaste: true,
        modifyOtherKeys: true,
        kittyDepth: 1,
      });
      shell.type("a draft");
      await shell.waitFor((s) => s.includes("a draft"), "the draft");
      process.kill(Number(await readFile(pidFile, "utf8")), signal);
      const screen = await shell.waitFor((s) => /exit=\d+/.test(s), "the exit status");
      expect(screen).toContain(`exit=${code}`);
      expect(modesAfter(await shell.output())).toEqual(OFF);
      expect(shell.cursorShown()).toBe(true);
      expect(screen).toContain("resume it with");
      const modes = (await fileWithText(stty)).split(/\s+/);
      expect(modes).toContain("icanon");
      expect(modes).toContain("echo");
      // A program run next gets a paste as plain text, with no paste markers around it.
      await shell.waitFor((s) => /\n\$$/.test(s.trimEnd()), "the shell's prompt again");
      shell.type("cat -v");
      shell.press("Enter");
      tmux("set-buffer", "-b", "probe", "pasted-text");
      tmux("paste-buffer", "-p", "-b", "probe", "-t", `keep:${signal.toLowerCase()}`);
      shell.press("Enter");
      const probed = await shell.waitFor(
        (s) => /pasted-text\n.*pasted-text/s.test(s),
        "cat's echo of the paste",
      );
      expect(probed).not.toContain("^[[200~");
      shell.press("C-d");
    }, 60_000);
  }

  it("an uncaught error gives the terminal back before its report", async () => {
    // Loaded before the CLI: an error thrown from a signal handler is uncaught by anything.
    const { module: crash, pidFile } = await preload("crash");
    const stty = join(fx.root, "stty.txt");
    const shell = shellWindow("crash", fx.env());
    await shell.waitFor((s) => s.includes("$ "), "the shell's prompt");
    // `sh -c`: nothing between the crash and `stty` sets the terminal's modes.
    shell.type(
      `sh -c ${quote(`${cliCommand({ NODE_OPTIONS: `--import=${crash}` })}; stty -a > ${quote(stty)}; echo crash-$((1+1))`)}`,
    );
    shell.press("Enter");
    await shell.waitFor((s) => s.includes("Ask anything"), "the UI");
    process.kill(Number(await readFile(pidFile, "utf8")), "SIGUSR2");
    const screen = await shell.waitFor((s) => s.includes("\ncrash-2"), "the shell after the crash");
    // The report starts at the left edge: the terminal translates newlines again.
    expect(screen).toMatch(/^Error: deliberate crash$/m);
    expect(screen).toMatch(/^\s+at /m);
    expect(modesAfter(await shell.output())).toEqual(OFF);
    expect(shell.cursorShown()).toBe(true);
    const modes = (await readFile(stty, "utf8")).split(/\s+/);
    expect(modes).toContain("icanon");
    expect(modes).toContain("echo");
  }, 60_000);
});
