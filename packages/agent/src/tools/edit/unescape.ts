const ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  '"': '"',
  "'": "'",
  "`": "`",
  "\\": "\\",
};
const ESCAPED = /\\(["'`\\nrt])/g;

/**
 * Text a model escaped once too often (a known Gemini habit): `\n`, `\t`, `\"`, `\'`, `` \` ``
 * and `\\` written out as two characters, read back as what they stand for.
 */
export function unescapeOverEscaped(text: string): string {
  return text.replace(ESCAPED, (_m, ch: string) => ESCAPES[ch] ?? ch).replaceAll("\r\n", "\n");
}

/**
 * old_string and new_string read back the same way when old_string is over-escaped; undefined
 * when reading changes nothing, or when new_string has real line breaks where old_string had only
 * written-out ones (then the two were not escaped alike, and reading new_string back is a guess).
 */
export function unescapedPair(
  oldText: string,
  newText: string,
): { oldText: string; newText: string } | undefined {
  const oldPlain = unescapeOverEscaped(oldText);
  if (oldPlain === oldText) return undefined;
  if (!oldText.includes("\n") && oldPlain.includes("\n") && newText.includes("\n")) return undefined;
  return { oldText: oldPlain, newText: unescapeOverEscaped(newText) };
}
