import { InvalidPatternError } from "./errors.js";

// ripgrep's \w and \d are Unicode-aware; JavaScript's are ASCII even with the u flag.
const WORD = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";
const DIGIT = "\\p{Nd}";

// POSIX classes as ripgrep (Rust regex) defines them: ASCII only.
const POSIX: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** A pattern in ripgrep's syntax rewritten for JavaScript's RegExp with the u flag. */
export interface TranslatedRegex {
  /** Source for `new RegExp(source, flags + "u")`. */
  readonly unicode: string;
  /** The pattern with only its inline flags removed, for the non-unicode fallback. */
  readonly plain: string;
  readonly ignoreCase: boolean;
  readonly dotAll: boolean;
}

/**
 * Rewrites the parts of ripgrep's regex syntax JavaScript lacks or reads differently: leading
 * inline flags `(?i)` / `(?s)` / `(?m)`, POSIX classes such as `[[:alpha:]]`, and Unicode-aware
 * `\w`, `\W`, `\d`, `\D`. Everything else passes through unchanged.
 */
export function translateRegex(pattern: string): TranslatedRegex {
  let body = pattern;
  let ignoreCase = false;
  let dotAll = false;
  const inline = /^\(\?([ims]+)\)/.exec(body);
  if (inline !== null) {
    const flags = inline[1] as string;
    ignoreCase = flags.includes("i");
    dotAll = flags.includes("s");
    body = body.slice(inline[0].length);
  }
  let out = "";
  let inClass = false;
  let classStart = -1; // index in `body` of the class's first member
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === "\\" && i + 1 < body.length) {
      const e = body[i + 1] as string;
      i++;
      if (e === "w") out += inClass ? WORD : `[${WORD}]`;
      else if (e === "W" && !inClass) out += `[^${WORD}]`;
      else if (e === "d") out += DIGIT;
      else if (e === "D") out += "\\P{Nd}";
      else out += c + e;
      continue;
    }
    if (inClass) {
      const posix = c === "[" ? /^\[:(\^?)([a-z]+):\]/.exec(body.slice(i)) : null;
      if (posix !== null && POSIX[posix[2] as string] !== undefined && posix[1] === "") {
        out += POSIX[posix[2] as string];
        i += posix[0].length - 1;
        continue;
      }
      if (c === "]") {
        // A "]" first in a class is a literal for ripgrep; JavaScript reads "[]" as an empty class.
        if (i === classStart) out += "\\]";
        else {
          inClass = false;
          out += c;
        }
        continue;
      }
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      classStart = body[i + 1] === "^" ? i + 2 : i + 1;
    }
    out += c;
  }
  return { unicode: out, plain: body, ignoreCase, dotAll };
}

/** Compiles a search regex the way ripgrep reads it, or throws InvalidPatternError. */
export function compileRegex(pattern: string, caseInsensitive: boolean): RegExp {
  const t = translateRegex(pattern);
  const flags = `${caseInsensitive || t.ignoreCase ? "i" : ""}${t.dotAll ? "s" : ""}`;
  try {
    return new RegExp(t.unicode, `${flags}u`);
  } catch {
    // Some escapes (\-, \/) are only legal without the unicode flag; ripgrep accepts them.
    try {
      return new RegExp(t.plain, flags);
    } catch (err) {
      throw new InvalidPatternError(pattern, (err as Error).message);
    }
  }
}
