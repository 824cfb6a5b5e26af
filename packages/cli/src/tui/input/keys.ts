import { type Key, useInput } from "ink";
import type { KeyHandler } from "./key-handoff.js";

/**
 * xterm's modifyOtherKeys form of a modified key, `CSI 27 ; modifiers ; code ~`, as Ink hands it
 * over (it does not decode it, and strips the leading ESC): Shift+Enter is `[27;2;13~`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC is what the sequence starts with
const MODIFY_OTHER_KEYS = /^\x1b?\[27;(\d+);(\d+)~$/;

/**
 * The terminal's answer to kitty's `CSI ? u` query: it arrives among the keys, whenever the
 * terminal sends it (a slow link makes it late), and is never typed into a draft as `[?1u`.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC is what the sequence starts with
const KITTY_QUERY_ANSWER = /^\x1b?\[\?\d*u$/;

let kittyAnswer: (() => void) | undefined;

/** Has `handler` called each time the terminal's answer to the kitty query arrives (undefined: none). */
export function onKittyQueryAnswer(handler: (() => void) | undefined): void {
  kittyAnswer = handler;
}

/** Kitty and xterm share the modifier bits, sent as 1 + the bits. */
const SHIFT = 1;
const ALT = 2;
const CTRL = 4;
const SUPER = 8;

/**
 * The key a modifyOtherKeys sequence stands for, as Ink would have described the same key in the
 * kitty encoding; the input unchanged when it is no such sequence. Every handler reads keys
 * through this, so no enhanced sequence is ever typed into a draft as text.
 */
export function decodeKey(input: string, key: Key): { readonly input: string; readonly key: Key } {
  const match = MODIFY_OTHER_KEYS.exec(input);
  if (match === null) return { input, key };
  const bits = Math.max(0, Number(match[1]) - 1);
  const code = Number(match[2]);
  const shift = (bits & SHIFT) !== 0;
  const ctrl = (bits & CTRL) !== 0;
  const meta = (bits & ALT) !== 0;
  const base: Key = {
    ...key,
    shift,
    ctrl,
    meta,
    super: (bits & SUPER) !== 0,
    return: code === 13,
    tab: code === 9,
    escape: code === 27,
    // Ink names DEL (what Backspace sends) "delete"; BS too when Ctrl is held.
    delete: code === 127 || code === 8,
    backspace: false,
  };
  if (code === 13) return { input: "\r", key: base };
  if (code === 9 || code === 27 || code === 127 || code === 8) return { input: "", key: base };
  const ch = String.fromCodePoint(code);
  // Ctrl+letter reads as the lower-case letter, as Ink reports Ctrl+C ("c" with ctrl).
  if (ctrl) return { input: ch.toLowerCase(), key: base };
  return { input: shift ? ch.toUpperCase() : ch, key: base };
}

/** True for Enter with Shift, Ctrl or Alt held: a new line in the draft, never a send. */
export function isNewlineEnter(key: Key): boolean {
  return key.return && (key.shift || key.ctrl || key.meta);
}

/** Ink's useInput with modifyOtherKeys sequences decoded first (see decodeKey). */
export function useKeys(handler: KeyHandler, options: { readonly isActive?: boolean } = {}): void {
  useInput((input, key) => {
    if (KITTY_QUERY_ANSWER.test(input)) {
      kittyAnswer?.();
      return;
    }
    const decoded = decodeKey(input, key);
    handler(decoded.input, decoded.key);
  }, options);
}
