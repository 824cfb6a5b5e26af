import stringWidth from "string-width";

/** Columns narrower than this make a table unreadable: below it, rows become lists. */
export const MIN_COLUMN = 6;
const SEPARATOR = 3; // " │ "

/** A table laid out for a width: rows of physical lines, or one block of lines per row as a list. */
export type TableLayout =
  | { readonly kind: "grid"; readonly widths: readonly number[] }
  | { readonly kind: "list" };

/** Column widths that fit `width` (the widest columns give way first), or "list" when they cannot. */
export function layoutTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
): TableLayout {
  const natural = header.map((h, col) =>
    Math.max(1, stringWidth(h), ...rows.map((r) => stringWidth(r[col] ?? ""))),
  );
  const budget = width - SEPARATOR * Math.max(0, natural.length - 1);
  if (natural.reduce((a, b) => a + b, 0) <= budget) return { kind: "grid", widths: natural };
  if (natural.length * MIN_COLUMN > budget) return { kind: "list" };
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) - budget;
  while (excess > 0) {
    let widest = 0;
    for (let i = 1; i < widths.length; i++) if ((widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i;
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess--;
  }
  return { kind: "grid", widths };
}

/** `text` broken into lines of at most `width` cells, at spaces where possible. */
export function wrapCell(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (stringWidth(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== "") lines.push(line);
    line = "";
    // A word wider than the column is cut where it reaches the edge.
    let rest = word;
    while (stringWidth(rest) > width) {
      let piece = "";
      for (const ch of rest) {
        if (stringWidth(piece + ch) > width) break;
        piece += ch;
      }
      if (piece === "") piece = [...rest][0] ?? "";
      lines.push(piece);
      rest = rest.slice(piece.length);
    }
    line = rest;
  }
  if (line !== "" || lines.length === 0) lines.push(line);
  return lines;
}

/** `text` padded with spaces to `width` cells, on the left when `right`. */
export function padCell(text: string, width: number, right = false): string {
  const fill = " ".repeat(Math.max(0, width - stringWidth(text)));
  return right ? fill + text : text + fill;
}
