/**
 * The interactive terminal UI of attractor (Ink + React).
 *
 * Wiring, in the order a host does it:
 *
 * ```ts
 * const { createInteractiveUi, runInteractive } = await import("./tui/index.js");
 * const ui = createInteractiveUi();                 // a RuntimeUi whose prompts wait for the screen
 * const runtime = await createRuntime({ ..., ui }); // the runtime asks permissions through it
 * const code = await runInteractive(runtime, { ui, initialMessage });
 * process.exitCode = code;
 * ```
 *
 * `ui.askPermission` / `ui.askUser` queue a pending prompt and return a promise that the prompt
 * components settle when the user answers; Esc, Ctrl+C and exit settle every pending prompt
 * ("abort" for permissions). `runInteractive` closes the runtime before it resolves.
 */
import { join } from "node:path";
import type { Runtime } from "@attractor/runtime";
import { attractorHome } from "@attractor/runtime/config";
import { render } from "ink";
import { createElement } from "react";
import { colourRefused, refuseColours } from "../terminal/no-color.js";
import {
  handleSuspend,
  handleTermination,
  TERMINATING_SIGNALS,
  takeTerminal,
} from "../terminal/terminal-modes.js";
import { App } from "./app.js";
import { createInteractiveUi as createBridge, type InteractiveUi } from "./bridge.js";
import { InputHistory } from "./input/history.js";
import { onKittyQueryAnswer } from "./input/keys.js";
import { eraseLiveAreas } from "./render/live-area.js";

export { DISMISSED_ANSWER, type InteractiveUi, type PendingPrompt } from "./bridge.js";
export { InputHistory } from "./input/history.js";

let lastCreated: InteractiveUi | undefined;

/** Creates the RuntimeUi bridge to pass to createRuntime and then to runInteractive. */
export function createInteractiveUi(): InteractiveUi {
  lastCreated = createBridge();
  return lastCreated;
}

/** How long closing the conversation may take after a terminating signal. */
const SIGNAL_CLOSE_LIMIT_MS = 3000;

/** How long after the first frame the MCP servers start. */
const MCP_START_DELAY_MS = 100;

/** How runInteractive starts; everything is optional but the bridge, which defaults as described. */
export interface InteractiveOptions {
  /** Sent as the first message once the UI is up. */
  readonly initialMessage?: string;
  /** The bridge given to createRuntime; defaults to the last one createInteractiveUi made. */
  readonly ui?: InteractiveUi;
  /** Where ↑/↓ history persists; `<ATTRACTOR_HOME>/input-history.jsonl` by default, false for none. */
  readonly historyFile?: string | false;
  readonly stdin?: NodeJS.ReadStream;
  readonly stdout?: NodeJS.WriteStream;
  readonly stderr?: NodeJS.WriteStream;
}

/**
 * Runs the interactive UI until the user leaves; resolves with the process exit code (0 after
 * /exit or Ctrl+C twice, 2 when stdin is not a terminal). The runtime is closed on the way out.
 */
export async function runInteractive(runtime: Runtime, options: InteractiveOptions = {}): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  if (!stdin.isTTY) {
    stderr.write("attractor: the interactive mode needs a terminal; use -p for a one-shot run.\n");
    await runtime.close().catch(() => undefined);
    return 2;
  }
  const ui = options.ui ?? lastCreated;
  if (!ui)
    throw new Error("runInteractive needs the InteractiveUi given to createRuntime (createInteractiveUi())");
  const historyFile =
    options.historyFile === false
      ? undefined
      : (options.historyFile ?? join(attractorHome(), "input-history.jsonl"));
  const history = new InputHistory(historyFile, [], runtime.projectDir);
  let code = 0;
  // Everything the UI shows goes through this stream: filtering it honours NO_COLOR everywhere.
  if (colourRefused()) refuseColours(stdout);
  // Raw mode, bracketed paste and enhanced keys, given back on exit, suspend and crash. Raw mode
  // starts before the first frame, not when Ink starts reading keys a moment after it: keys typed
  // in between would otherwise be echoed into the drawn frame (and an echoed Enter moves the
  // cursor a row down, so every later frame would be drawn a row off).
  const terminal = takeTerminal(stdin, stdout);
  onKittyQueryAnswer(terminal.kittyAnswered);
  // The live area is erased before the process stops: the shell's lines follow it, and the frame
  // is drawn afresh below them when the process continues.
  const suspension = handleSuspend(terminal, eraseLiveAreas, () => stdout.emit("resize"));
  const instance = render(
    createElement(App, {
      runtime,
      ui,
      history,
      ...(options.initialMessage !== undefined && { initialMessage: options.initialMessage }),
      onExit: (c: number) => {
        code = c;
      },
      onSuspend: () => suspension.suspend(),
      terminal,
    }),
    // Only the lines that changed are rewritten: a spinner's tick costs its own line, not the screen.
    {
      stdin,
      stdout,
      stderr,
      exitOnCtrlC: false,
      incrementalRendering: true,
      // Not Ink's kitty detection: it asks only terminals it knows by name and gives up on an
      // answer after 200 ms (a later one was typed into the draft). takeTerminal asks every
      // terminal, and the answer enables the protocol whenever it comes.
    },
  );
  // The first frame is written once render() returns. MCP servers start a moment later: their
  // start-up (and the MCP SDK's loading) takes the CPU for a few hundred milliseconds, and the
  // terminal should have painted the frame by then. A message sent earlier starts them itself.
  const mcpStart = setTimeout(() => runtime.mcp?.start(), MCP_START_DELAY_MS);
  // SIGTERM, SIGHUP or a SIGINT from outside: the UI stops where it is and the terminal is given
  // back at once; the conversation is then closed as on /exit (within a bound: the signal's sender
  // expects the process to end) and the process exits with 128 + the signal's number.
  const termination = handleTermination(terminal, () => {
    ui.cancelAll();
    instance.unmount();
  });
  try {
    await instance.waitUntilExit();
  } finally {
    clearTimeout(mcpStart);
    termination.dispose();
    suspension.dispose();
    onKittyQueryAnswer(undefined);
    // Ink has let go of the keyboard by now; the terminal is never left without its echo.
    terminal.release();
  }
  const signal = termination.signal();
  if (signal !== undefined) {
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([
      runtime.close().catch(() => undefined),
      new Promise((r) => {
        bound = setTimeout(r, SIGNAL_CLOSE_LIMIT_MS);
      }),
    ]);
    clearTimeout(bound);
    code = 128 + TERMINATING_SIGNALS[signal];
  }
  stdout.write(
    `\nConversation ${runtime.session.id} is stored; resume it with: attractor --resume ${runtime.session.id}\n`,
  );
  return code;
}
