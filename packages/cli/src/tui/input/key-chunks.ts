import type { Key } from "ink";

/** A key with nothing pressed; the base for keys read out of a chunk. */
const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is split on
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * The keys of a chunk of typed input that holds control characters among other text, one by one
 * (Ctrl+letter, Enter, Tab, Backspace; runs of text stay together); undefined when the chunk is
 * a single key or plain text. Keys typed ahead of a busy program arrive in one chunk, and only
 * escape sequences are split before they reach us: "\x12why" is Ctrl+R and then "why".
 */
export function splitTypedChunk(input: string): { readonly input: string; readonly key: Key }[] | undefined {
  if (input.length < 2 || !CONTROL.test(input)) return undefined;
  const keys: { input: string; key: Key }[] = [];
  let text = "";
  const flush = () => {
    if (text !== "") keys.push({ input: text, key: NO_KEY });
    text = "";
  };
  for (const ch of input) {
    const code = ch.codePointAt(0) ?? 0;
    if (!CONTROL.test(ch)) {
      text += ch;
      continue;
    }
    flush();
    if (ch === "\r") keys.push({ input: "\r", key: { ...NO_KEY, return: true } });
    else if (ch === "\n") keys.push({ input: "\n", key: NO_KEY });
    else if (ch === "\t") keys.push({ input: "\t", key: { ...NO_KEY, tab: true } });
    // Terminals send DEL (or BS) for Backspace; Ink names DEL "delete".
    else if (ch === "\x7f" || ch === "\b") keys.push({ input: "", key: { ...NO_KEY, delete: true } });
    else if (code >= 1 && code <= 26)
      keys.push({ input: String.fromCharCode(code + 96), key: { ...NO_KEY, ctrl: true } });
  }
  flush();
  return keys;
}
