/**
 * Word wrapping without the spaces of the break. Ink wraps text with wrap-ansi and `trim: false`
 * (so a line's own indentation survives), which leaves the space a line was broken at on one of
 * the two rows: at the end of the first, or at the start of the next when the first was exactly
 * full. That space indented wrapped prose, list items and quotes by one cell past their hanging
 * indent, and came along when the text was copied. Here each source line is wrapped on its own
 * and the whitespace around every break it made is dropped; the line's own indentation (its
 * first row's start) and its end stay as written.
 */

/** wrap-ansi's signature, as the renderer calls it. */
export type WrapAnsi = (
  text: string,
  columns: number,
  options: { readonly trim: boolean; readonly hard: boolean },
) => string;

/** Colour and style sequences a row may start or end with (wrap-ansi closes and reopens them there). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the sequences start with ESC
const LEADING_SPACE = /^((?:\x1b\[[0-9;:]*m|\x1b\]8;[^\x07]*\x07)*)[ \t]+/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the sequences start with ESC
const TRAILING_SPACE = /[ \t]+((?:\x1b\[[0-9;:]*m|\x1b\]8;[^\x07]*\x07)*)$/;

/** `text` wrapped to `columns` by `wrap`, with no row starting or ending in the space of a break. */
export function softWrap(text: string, columns: number, wrap: WrapAnsi): string {
  return text
    .split("\n")
    .map((line) => {
      const rows = wrap(line, columns, { trim: false, hard: true }).split("\n");
      if (rows.length === 1) return rows[0];
      return rows
        .map((row, i) => {
          let out = row;
          if (i > 0) out = out.replace(LEADING_SPACE, "$1");
          if (i < rows.length - 1) out = out.replace(TRAILING_SPACE, "$1");
          return out;
        })
        .join("\n");
    })
    .join("\n");
}
