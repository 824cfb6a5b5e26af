/**
 * The terminal modes the interactive UI takes while it runs, and gives back whenever it lets go of
 * the terminal: on exit, on suspend (Ctrl+Z or a SIGTSTP from outside) and on a crash, or the
 * shell would be left with a hidden cursor, keys it cannot read and pastes wrapped in markers.
 *
 * - raw mode (no echo, no line editing): keys reach the program one by one;
 * - bracketed paste: the terminal marks pasted text, so its newlines are not taken for Enter;
 * - enhanced keys, so Shift+Enter, Ctrl+Enter and Ctrl+letter arrive as keys of their own: kitty's
 *   progressive enhancement (the disambiguate flag pushed with `CSI > 1 u` once the terminal has
 *   answered the `CSI ? u` query, however late: terminals that do not know it ignore the query)
 *   and xterm's modifyOtherKeys (`CSI > 4 ; 2 m`, which terminals that do not know it ignore);
 * - the hidden cursor of the live area (the caret is drawn where the input wants it).
 */

/** Turns xterm's modifyOtherKeys on at level 2. */
export const MODIFY_OTHER_KEYS_ON = "\x1b[>4;2m";
/** Resets modifyOtherKeys (level 0). */
export const MODIFY_OTHER_KEYS_OFF = "\x1b[>4;0m";
/** Asks the terminal for its kitty keyboard flags; only terminals that have them answer. */
export const KITTY_KEYS_QUERY = "\x1b[?u";
/** Pushes kitty's "disambiguate escape codes" flag. */
export const KITTY_KEYS_PUSH = "\x1b[>1u";
/** Pops one entry of kitty's keyboard-flags stack. */
export const KITTY_KEYS_POP = "\x1b[<u";
export const BRACKETED_PASTE_ON = "\x1b[?2004h";
export const BRACKETED_PASTE_OFF = "\x1b[?2004l";
export const SHOW_CURSOR = "\x1b[?25h";
export const HIDE_CURSOR = "\x1b[?25l";

/** The terminal as the UI holds it: given back and taken again around a suspend. */
export interface TerminalModes {
  /** Gives every mode back as the shell expects it (idempotent). */
  readonly release: () => void;
  /** Takes the modes again after a suspend (kitty's flag too, if it was on). */
  readonly retake: () => void;
  /** The terminal answered the kitty query: its flag is pushed (once). */
  readonly kittyAnswered: () => void;
}

/**
 * Takes the terminal: raw mode, bracketed paste and modifyOtherKeys now, and asks whether it has
 * kitty's keyboard protocol (`kittyAnswered` pushes its flag when the answer comes). Everything
 * is given back on exit, uncaught errors included. A no-op when stdout is not a terminal.
 */
export function takeTerminal(stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): TerminalModes {
  if (!stdout.isTTY)
    return { release: () => undefined, retake: () => undefined, kittyAnswered: () => undefined };
  let kitty = false;
  let held = false;
  const raw = (on: boolean) => {
    if (stdin.isTTY && typeof stdin.setRawMode === "function") stdin.setRawMode(on);
  };
  const retake = () => {
    // The keys typed before the renderer reads them must not be echoed into the first frame.
    raw(true);
    stdout.write(BRACKETED_PASTE_ON + MODIFY_OTHER_KEYS_ON + (kitty ? KITTY_KEYS_PUSH : "") + HIDE_CURSOR);
    held = true;
  };
  const release = () => {
    if (!held) return;
    held = false;
    try {
      stdout.write(BRACKETED_PASTE_OFF + MODIFY_OTHER_KEYS_OFF + (kitty ? KITTY_KEYS_POP : "") + SHOW_CURSOR);
      raw(false);
    } catch {
      // The terminal is gone: nothing is left to give back.
    }
  };
  const kittyAnswered = () => {
    if (kitty || !held) return;
    kitty = true;
    stdout.write(KITTY_KEYS_PUSH);
  };
  // 'exit' runs on every way out; writes to a terminal are synchronous. An uncaught error is
  // printed before 'exit': the monitor gives the terminal back first, so the report is readable
  // (lines start at the left edge again) and the shell gets its cursor.
  process.once("exit", release);
  process.once("uncaughtExceptionMonitor", release);
  retake();
  stdout.write(KITTY_KEYS_QUERY);
  return { release, retake, kittyAnswered };
}

/** Suspending the UI's process, by Ctrl+Z (a key in raw mode) or a SIGTSTP sent to it. */
export interface Suspension {
  /** Gives the terminal back and stops the process; returns once the shell has continued it. */
  readonly suspend: () => void;
  /** Stops listening to SIGTSTP. */
  readonly dispose: () => void;
}

/**
 * Suspends the process as the shell's job control expects: `beforeStop` (the live area erased),
 * the terminal given back, the process stopped; when the shell continues it (`fg`), the modes
 * are taken again and `redraw` repaints the screen.
 */
export function handleSuspend(modes: TerminalModes, beforeStop: () => void, redraw: () => void): Suspension {
  const suspend = () => {
    beforeStop();
    modes.release();
    // With no listener, SIGTSTP's default action stops the process (and the shell says so).
    process.off("SIGTSTP", suspend);
    process.once("SIGCONT", () => {
      process.on("SIGTSTP", suspend);
      // The cursor stays hidden until the live area draws its caret again.
      modes.retake();
      redraw();
    });
    process.kill(process.pid, "SIGTSTP");
  };
  process.on("SIGTSTP", suspend);
  return { suspend, dispose: () => process.off("SIGTSTP", suspend) };
}

/** The signals that end the UI from outside, with their numbers (the exit code is 128 + the number). */
export const TERMINATING_SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
export type TerminatingSignal = keyof typeof TERMINATING_SIGNALS;

/** Ending the UI's process by a signal from outside (in raw mode Ctrl+C is a key, not a SIGINT). */
export interface Termination {
  /** The signal that ended the UI, once one came. */
  readonly signal: () => TerminatingSignal | undefined;
  /** Stops listening to the signals. */
  readonly dispose: () => void;
}

/**
 * On SIGTERM, SIGHUP or SIGINT: `stop` (the live area's last frame left, the UI unmounted), then
 * the terminal given back at once, whatever the rest of the shutdown does; a second signal exits
 * at once with 128 + its number. Listening to the signals also keeps a library's own signal
 * handling (which re-raises the signal and dies without the process's 'exit' event, modes left
 * on) from acting: it only acts when it is the signal's only listener.
 */
export function handleTermination(
  modes: TerminalModes,
  stop: (signal: TerminatingSignal) => void,
): Termination {
  let received: TerminatingSignal | undefined;
  const listeners = (Object.keys(TERMINATING_SIGNALS) as TerminatingSignal[]).map((signal) => {
    const listener = () => {
      if (received !== undefined) {
        modes.release();
        process.exit(128 + TERMINATING_SIGNALS[signal]);
      }
      received = signal;
      try {
        stop(signal);
      } finally {
        modes.release();
      }
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return {
    signal: () => received,
    dispose: () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    },
  };
}
