import * as path from "node:path";

/** How many imports deep an instructions file may pull others in (Claude Code's limit). */
export const MAX_IMPORT_DEPTH = 5;

/**
 * The `@path` references of an instructions file, in order, as Claude Code reads them: a word
 * starting with `@` after whitespace or at the start of a line, not inside a fenced code block
 * or an inline code span. E-mail addresses (`a@b.c`) are not references: `@` must start the word.
 */
export function importReferences(content: string): string[] {
  const refs: string[] = [];
  let fence: string | undefined;
  for (const line of content.split("\n")) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    // Inline code spans are blanked out before looking for references.
    const prose = line.replace(/(`+)[\s\S]*?\1/g, (span) => " ".repeat(span.length));
    for (const m of prose.matchAll(/(?:^|\s)@((?:[^\s\\]|\\ )+)/g)) {
      const ref = (m[1] as string).replace(/\\ /g, " ").replace(/[.,;:!?)]+$/, "");
      if (ref !== "") refs.push(ref);
    }
  }
  return refs;
}

/**
 * Resolves an `@path` reference of `file`: `~/` against the home directory, absolute as is,
 * anything else against the file's folder. Undefined when the result is outside both `roots`
 * (the project and the home directory): an instructions file cannot pull in arbitrary files.
 */
export function resolveImport(
  ref: string,
  file: string,
  home: string,
  roots: readonly string[],
): string | undefined {
  const target = ref.startsWith("~/")
    ? path.join(home, ref.slice(2))
    : path.isAbsolute(ref)
      ? path.normalize(ref)
      : path.resolve(path.dirname(file), ref);
  const inside = (root: string) => {
    const rel = path.relative(root, target);
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  };
  return roots.some(inside) ? target : undefined;
}
