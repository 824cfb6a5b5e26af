/**
 * How edit_file found old_string, strictest first. Each layer normalises old_string, new_string
 * and the file the same way and needs a unique match; a layer is tried only when the stricter ones
 * found nothing.
 */
export type EditStrategy =
  | "exact"
  | "line-endings"
  | "trailing-whitespace"
  | "typographic"
  | "indentation"
  | "tabs-spaces"
  | "tabs-spaces-shifted";

/** Human names for the layers, used in results and error messages. */
export const STRATEGY_NAMES: Readonly<Record<EditStrategy, string>> = {
  exact: "exact match",
  "line-endings": "line endings normalised",
  "trailing-whitespace": "trailing whitespace ignored",
  typographic: "typographic quotes, dashes and spaces read as ASCII",
  indentation: "indentation shifted uniformly",
  "tabs-spaces": "tabs and spaces converted to the file's indentation",
  "tabs-spaces-shifted": "tabs and spaces converted and indentation shifted uniformly",
};

/** How old_string and new_string were read before matching. */
export type EditReading = "as-written" | "unescaped" | "line-numbers";

/** Human names for the readings. */
export const READING_NAMES: Readonly<Record<EditReading, string>> = {
  "as-written": "as written",
  unescaped: 'over-escaped \\n, \\t and \\" read back',
  "line-numbers": "read_file's line-number prefixes removed",
};
