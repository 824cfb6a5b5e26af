/**
 * Path globs matched by simulating every possible position at once (a Thompson NFA), so matching
 * takes time proportional to path length × pattern length whatever the pattern: a rule such as
 * `edit(a*a*a*…*c)` cannot stall the process the way a backtracking regular expression does.
 * Syntax: `*` (within a segment), `**` (any number of segments), `?`, `[…]` / `[!…]`, `{a,b}`,
 * `\` escapes; dot files are matched like any other.
 */

type Token =
  | { readonly kind: "literal"; readonly char: string }
  | { readonly kind: "one" }
  | { readonly kind: "star" }
  | { readonly kind: "any" }
  | { readonly kind: "dirs" }
  | { readonly kind: "class"; readonly negated: boolean; readonly test: (c: string) => boolean };

/** More brace alternatives than this make the pattern invalid. */
const MAX_ALTERNATIVES = 64;

/** A glob the matcher cannot use. */
export class GlobSyntaxError extends Error {
  override readonly name = "GlobSyntaxError";
}

/** Compiles a path glob to a predicate that runs in linear time per alternative. */
export function compileGlob(pattern: string): (path: string) => boolean {
  // `dir/**` covers the directory itself too.
  const alternatives = expandBraces(pattern).flatMap((p) =>
    p.endsWith("/**") && !p.endsWith("\\/**") ? [p, p.slice(0, -3)] : [p],
  );
  const programs = alternatives.map(tokenize);
  return (path) => programs.some((tokens) => run(tokens, path));
}

function expandBraces(pattern: string): string[] {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\") {
      i++;
      continue;
    }
    if (pattern[i] !== "{") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = i + 1; j < pattern.length; j++) {
      const c = pattern[j];
      if (c === "\\") j++;
      else if (c === "{") depth++;
      else if (c === "}" && depth > 0) depth--;
      else if (c === "," && depth === 0) commas.push(j);
      else if (c === "}") {
        if (commas.length === 0) break;
        const parts: string[] = [];
        let from = i + 1;
        for (const k of [...commas, j]) {
          parts.push(pattern.slice(from, k));
          from = k + 1;
        }
        const out = parts.flatMap((p) => expandBraces(pattern.slice(0, i) + p + pattern.slice(j + 1)));
        if (out.length > MAX_ALTERNATIVES)
          throw new GlobSyntaxError(`${pattern} has more than ${MAX_ALTERNATIVES} alternatives`);
        return out;
      }
    }
  }
  return [pattern];
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\" && i + 1 < pattern.length) {
      tokens.push({ kind: "literal", char: pattern[++i] as string });
    } else if (c === "*") {
      let j = i;
      while (pattern[j + 1] === "*") j++;
      const whole =
        j > i && (i === 0 || pattern[i - 1] === "/") && (j + 1 === pattern.length || pattern[j + 1] === "/");
      if (whole && pattern[j + 1] === "/") {
        tokens.push({ kind: "dirs" });
        j++;
      } else if (whole) {
        tokens.push({ kind: "any" });
      } else tokens.push({ kind: "star" });
      i = j;
    } else if (c === "?") {
      tokens.push({ kind: "one" });
    } else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) {
        tokens.push({ kind: "literal", char: c });
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      const ranges: [string, string][] = [];
      for (let k = 0; k < body.length; k++) {
        const from = body[k] as string;
        if (body[k + 1] === "-" && k + 2 < body.length) {
          ranges.push([from, body[k + 2] as string]);
          k += 2;
        } else ranges.push([from, from]);
      }
      tokens.push({ kind: "class", negated, test: (ch) => ranges.some(([a, b]) => ch >= a && ch <= b) });
      i = close;
    } else tokens.push({ kind: "literal", char: c });
  }
  return tokens;
}

/** States: 2·i is "before token i"; 2·i+1 is "inside a `**\/` token i, before its closing slash". */
function run(tokens: readonly Token[], path: string): boolean {
  const end = tokens.length;
  let states = new Set<number>();
  const add = (set: Set<number>, state: number) => {
    if (set.has(state)) return;
    set.add(state);
    if (state % 2 === 0) {
      const token = tokens[state / 2];
      if (token && (token.kind === "star" || token.kind === "any" || token.kind === "dirs"))
        add(set, state + 2);
    }
  };
  add(states, 0);
  for (const c of path) {
    const next = new Set<number>();
    for (const state of states) {
      if (state % 2 === 1) {
        add(next, c === "/" ? state - 1 : state);
        continue;
      }
      const token = tokens[state / 2];
      if (!token) continue;
      switch (token.kind) {
        case "literal":
          if (token.char === c) add(next, state + 2);
          break;
        case "one":
          if (c !== "/") add(next, state + 2);
          break;
        case "class":
          if (c !== "/" && token.test(c) !== token.negated) add(next, state + 2);
          break;
        case "star":
          if (c !== "/") add(next, state);
          break;
        case "any":
          add(next, state);
          break;
        case "dirs":
          add(next, c === "/" ? state : state + 1);
          break;
      }
    }
    states = next;
    if (states.size === 0) return false;
  }
  return states.has(2 * end);
}
