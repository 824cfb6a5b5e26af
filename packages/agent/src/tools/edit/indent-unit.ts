import { indentOf } from "./normalize.js";

/** How a text indents one level: a tab, or a number of spaces. */
export type IndentUnit = { readonly kind: "tab" } | { readonly kind: "spaces"; readonly width: number };

/**
 * The indentation unit a file uses, from its indented lines: tabs when most start with a tab,
 * else the most common step between two consecutive indentation depths. Undefined when the file
 * does not show it (too few indented lines).
 */
export function fileIndentUnit(lines: readonly string[]): IndentUnit | undefined {
  let tabs = 0;
  let spaces = 0;
  const steps = new Map<number, number>();
  let previous = 0;
  for (const line of lines) {
    const indent = indentOf(line);
    // A lone space is a block comment's continuation (" * text"), not indentation.
    if (line.trim() === "" || indent === " ") continue;
    if (indent.startsWith("\t")) tabs++;
    else if (indent.startsWith(" ")) spaces++;
    if (!indent.includes("\t")) {
      const step = indent.length - previous;
      if (step > 0 && step <= 8) steps.set(step, (steps.get(step) ?? 0) + 1);
      previous = indent.length;
    }
  }
  if (tabs > spaces) return { kind: "tab" };
  if (spaces < 2) return undefined;
  let best: [number, number] | undefined;
  for (const [step, count] of steps) {
    if (best === undefined || count > best[1] || (count === best[1] && step < best[0])) best = [step, count];
  }
  return best === undefined ? undefined : { kind: "spaces", width: best[0] };
}

/**
 * The conversions of a model's indentation into a file's unit worth trying: a model that used
 * tabs for a space-indented file, or spaces (2, 4 or 8 a level) for a tab-indented one or for one
 * with another width. Each maps leading whitespace to leading whitespace.
 */
export function indentConversions(
  file: IndentUnit,
  modelLines: readonly string[],
): ReadonlyArray<(indent: string) => string | undefined> {
  const indents = modelLines.filter((l) => l.trim() !== "").map(indentOf);
  const out: Array<(indent: string) => string | undefined> = [];
  const unit = file.kind === "tab" ? "\t" : " ".repeat(file.width);
  if (file.kind === "spaces" && indents.some((i) => i.includes("\t"))) {
    // Each tab is one level; spaces after the tabs are alignment and stay.
    out.push((indent) => {
      const m = /^(\t*)( *)$/.exec(indent);
      return m === null ? undefined : unit.repeat((m[1] as string).length) + (m[2] as string);
    });
  }
  if (indents.some((i) => i.startsWith(" "))) {
    for (const width of [2, 4, 8]) {
      if (file.kind === "spaces" && width === file.width) continue;
      // A width that leaves spaces over on a line of old_string is not the model's unit.
      if (indents.some((i) => (/ *$/.exec(i)?.[0].length ?? 0) % width !== 0)) continue;
      out.push((indent) => {
        const m = /^(\t*)( *)$/.exec(indent);
        if (m === null) return undefined;
        const spaces = (m[2] as string).length;
        return unit.repeat((m[1] as string).length + Math.floor(spaces / width)) + " ".repeat(spaces % width);
      });
    }
  }
  return out;
}
