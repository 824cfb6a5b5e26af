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
  return text.replace(ESCAPED, (_m, ch: string) => ESCAPES[ch] ?? ch);
}
