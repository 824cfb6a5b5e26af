// Colour and style (SGR: ESC [ params m) only: dropped silently, it cannot move, clear or write.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SGR = /\x1b\[[0-9;:]*m/g;
// C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the Unicode
// bidirectional overrides that make text read differently from what it is.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function picture(char: string): string {
  if (char === "\r\n") return "\n";
  const code = char.charCodeAt(0);
  // Control Pictures (U+2400…) for C0, ␡ for DEL; the rest as a code point.
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return "\u2421";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/**
 * Makes text from a model or a tool safe to print on a terminal: colour codes are dropped and
 * every other control character — ESC of cursor moves, screen clears and OSC 52 clipboard writes,
 * carriage returns, bells, C1 codes, bidi overrides — is shown as a visible symbol (ESC as ␛),
 * so nothing in the text acts on the terminal. Newlines and tabs stay.
 */
export function visibleControls(text: string): string {
  return text.replace(SGR, "").replace(CONTROL, picture);
}

/** visibleControls applied to every string inside JSON-like data (a copy; other values as they are). */
export function visibleControlsDeep<T>(value: T): T {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") return visibleControls(v);
    // Past any sensible depth the data is shown as it is cut: its text form, made safe.
    if (depth > 64 && v !== null && typeof v === "object") return visibleControls(safeJson(v));
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, depth + 1);
      return out;
    }
    return v;
  };
  return walk(value, 0) as T;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[unprintable]";
  }
}
