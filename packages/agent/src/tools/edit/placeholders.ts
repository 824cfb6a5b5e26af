// A comment that stands for code the model left out: "// ... rest of code", "# existing code here",
// "/* unchanged */", "<!-- ... -->". Writing one into a file deletes the code it stands for.
const COMMENT = /^\s*(?:\/\/+|#+|--|;+|\/\*+|<!--|\{\/\*|\*)\s*(.*?)\s*(?:\*+\/|-->|\*\/\})?\s*$/;
const PHRASES = [
  /^(?:\.\.\.|\u2026)$/,
  /\brest of (?:the )?(?:code|file|function|method|methods|class|implementation|component|content|body|module|logic|lines?)\b/i,
  /\b(?:existing|previous|original|remaining|other|unchanged|same) (?:code|content|implementation|methods|functions|logic|lines|imports|tests|props|fields)\b/i,
  /\b(?:code|content|implementation|everything else|rest) (?:remains|stays|is) (?:the same|unchanged|as (?:is|before))\b/i,
  /\b(?:omitted|elided|truncated)(?: for brevity)?\b/i,
  /^(?:\.\.\.|\u2026)?\s*(?:unchanged|no changes?|as before|same as before)\s*(?:\.\.\.|\u2026)?$/i,
];

/** The placeholder comments in `text` (trimmed lines), for lines that are nothing but such a comment. */
export function omissionPlaceholders(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const m = COMMENT.exec(line);
    if (!m) continue;
    const body = (m[1] ?? "").replace(/^(?:\.\.\.|\u2026)\s*/, "").replace(/\s*(?:\.\.\.|\u2026)$/, "");
    const whole = (m[1] ?? "").trim();
    if (PHRASES.some((p) => p.test(whole) || (body !== "" && p.test(body)))) found.push(line.trim());
  }
  return found;
}

/**
 * Placeholders new_string adds that old_string does not already contain: a model that abridged its
 * replacement. Empty when there are none.
 */
export function addedPlaceholders(oldText: string, newText: string): string[] {
  const before = new Set(omissionPlaceholders(oldText));
  return omissionPlaceholders(newText).filter((p) => !before.has(p));
}
