/** Typographic dashes and quotes with the ASCII character each stands for, one for one. */
export const DASHES_AND_QUOTES: Readonly<Record<string, string>> = {
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
};

// Typographic characters models write for the ASCII ones in a file (and the reverse), each one
// character for one, so that a line keeps its length and positions when it is compared.
const ONE_FOR_ONE: Readonly<Record<string, string>> = {
  ...DASHES_AND_QUOTES,
  "\u00A0": " ",
  "\u2007": " ",
  "\u2009": " ",
  "\u202F": " ",
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is the point
const ASCII_ONLY = /^[\x00-\x7f]*$/;

// Full-width ASCII forms (U+FF01-FF5E) and the ideographic space, common in CJK text.
const ANY = new RegExp(`[${Object.keys(ONE_FOR_ONE).join("")}\\uFF01-\\uFF5E\\u3000]`, "g");

function plain(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code >= 0xff01 && code <= 0xff5e) return String.fromCharCode(code - 0xfee0);
  if (code === 0x3000) return " ";
  return ONE_FOR_ONE[ch] ?? ch;
}

/**
 * Curly quotes, dashes, non-breaking and ideographic spaces and full-width forms read as their
 * ASCII forms, one character for one, so that offsets are kept.
 */
export function plainPunctuation(text: string): string {
  if (ASCII_ONLY.test(text)) return text;
  return text.replace(ANY, plain);
}
