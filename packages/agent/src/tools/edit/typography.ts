// Typographic characters models write for the ASCII ones in a file (and the reverse), each one
// character for one, so that a line keeps its length and positions when it is compared.
const ONE_FOR_ONE: Readonly<Record<string, string>> = {
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
  "\u00A0": " ",
  "\u2007": " ",
  "\u2009": " ",
  "\u202F": " ",
};
const TYPOGRAPHIC = new RegExp(`[${Object.keys(ONE_FOR_ONE).join("")}]`, "g");

// Full-width ASCII forms (U+FF01-FF5E) and the ideographic space, common in CJK text.
const FULL_WIDTH = /[\uFF01-\uFF5E\u3000]/g;

/**
 * Curly quotes, dashes, non-breaking and ideographic spaces and full-width forms read as their
 * ASCII forms, one character for one, so that offsets are kept.
 */
export function plainPunctuation(text: string): string {
  return text
    .replace(TYPOGRAPHIC, (ch) => ONE_FOR_ONE[ch] ?? ch)
    .replace(FULL_WIDTH, (ch) => (ch === "\u3000" ? " " : String.fromCharCode(ch.charCodeAt(0) - 0xfee0)));
}
