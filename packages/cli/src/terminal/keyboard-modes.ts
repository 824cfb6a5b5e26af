/**
 * Enhanced keyboard reporting, so Shift+Enter, Ctrl+Enter and Ctrl+letter combinations reach the
 * program as distinct keys. Two encodings exist: kitty's progressive enhancement (pushed with
 * `CSI > 1 u`, "disambiguate escape codes", after the terminal answered the `CSI ? u` query) and
 * xterm's modifyOtherKeys (`CSI > 4 ; 2 m`, which terminals that do not know it ignore). Both are
 * undone whenever the program lets go of the terminal: on exit, on suspend and on a crash, or
 * the shell would be left receiving sequences it cannot read.
 */

/** Turns xterm's modifyOtherKeys on at level 2. */
export const MODIFY_OTHER_KEYS_ON = "\x1b[>4;2m";
/** Resets modifyOtherKeys (level 0) and pops the kitty flags pushed by the program, if any. */
export const ENHANCED_KEYS_OFF = "\x1b[<u\x1b[>4;0m";

/** The terminal's keyboard modes, turned on and off as the program takes and leaves the terminal. */
export interface KeyboardModes {
  /** Undoes both modes; safe to call more than once. */
  readonly restore: () => void;
  /** Turns modifyOtherKeys on again (after a suspend); kitty's flags are pushed again by Ink's query. */
  readonly resume: () => void;
}

/**
 * Turns modifyOtherKeys on and arranges that both enhanced modes are undone on exit, even when
 * the process dies of an uncaught error; kitty's mode itself is pushed by the renderer once the
 * terminal answered its query.
 */
export function takeKeyboard(stdout: NodeJS.WriteStream): KeyboardModes {
  if (!stdout.isTTY) return { restore: () => undefined, resume: () => undefined };
  let on = false;
  const resume = () => {
    stdout.write(MODIFY_OTHER_KEYS_ON);
    on = true;
  };
  const restore = () => {
    if (!on) return;
    on = false;
    try {
      stdout.write(ENHANCED_KEYS_OFF);
    } catch {
      // The terminal is gone: nothing is left to restore.
    }
  };
  // 'exit' runs on every way out, uncaught errors included; writes to a terminal are synchronous.
  process.once("exit", restore);
  resume();
  return { restore, resume };
}

/**
 * Ctrl+Z: gives the terminal back to the shell (keyboard modes off, echo on) and stops the
 * process; when the shell continues it, the modes come back and `redraw` repaints the screen.
 */
export function suspendProcess(stdin: NodeJS.ReadStream, modes: KeyboardModes, redraw: () => void): void {
  modes.restore();
  if (stdin.isTTY && typeof stdin.setRawMode === "function") stdin.setRawMode(false);
  process.once("SIGCONT", () => {
    if (stdin.isTTY && typeof stdin.setRawMode === "function") stdin.setRawMode(true);
    modes.resume();
    redraw();
  });
  process.kill(process.pid, "SIGTSTP");
}
