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

/**
 * Whether new_string looks over-escaped when old_string is not: it has no line break but writes
 * out `\n` where no string literal is open, and old_string writes out none. Such a new_string
 * may mean line breaks or the two characters, and the two give different files.
 */
export function newLooksOverEscaped(oldText: string, newText: string): boolean {
  if (newText.includes("\n") || oldText.includes("\\n")) return false;
  let quote: string | undefined;
  for (let i = 0; i < newText.length; i++) {
    const ch = newText[i] as string;
    if (ch === "\\") {
      if (newText[i + 1] === "n" && quote === undefined) return true;
      i++;
    } else if (quote === undefined && (ch === '"' || ch === "'" || ch === "`")) quote = ch;
    else if (ch === quote) quote = undefined;
  }
  return false;
}
