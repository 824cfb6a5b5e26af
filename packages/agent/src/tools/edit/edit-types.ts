/** The matching layers of edit_file, in the order they are tried. */
export type EditStrategy = "exact" | "line-endings" | "unicode" | "whitespace" | "tokens" | "fuzzy";

/** Human names for the layers, used in results and error messages. */
export const STRATEGY_NAMES: Readonly<Record<EditStrategy, string>> = {
  exact: "exact match",
  "line-endings": "line endings normalised",
  unicode: "Unicode forms, quotes, dashes, odd spaces and trailing whitespace normalised",
  whitespace: "whitespace-flexible (indentation and blank lines ignored, new text re-indented)",
  tokens: "tokens matched with any whitespace between them",
  fuzzy: "fuzzy match",
};

/** One place a layer found: the span of the file's text it covers and what goes there. */
export interface SpanEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** What one layer found: every candidate place, each already turned into a span edit. */
export interface LayerResult {
  readonly edits: readonly SpanEdit[];
  /** Fuzzy only: similarity (0..1) of the best place. */
  readonly similarity?: number;
  /** Fuzzy only: another place scored as well as the best one. */
  readonly tie?: boolean;
}

/** The inputs every layer sees. */
export interface LayerInput {
  /** The file's text without its BOM, line endings as in the file. */
  readonly body: string;
  /** old_string and new_string with LF line breaks. */
  readonly oldText: string;
  readonly newText: string;
}
