import type { SyntaxNode } from "./bash-parser.js";

/** One argument after static expansion. */
export interface Word {
  /** The expanded text; for a dynamic word, its source text. */
  readonly text: string;
  /** Its value depends on something only known when the command runs ($(…), $1, unknown variables). */
  readonly dynamic: boolean;
  /** Contains unquoted glob characters (`*`, `?`, `[`): the shell would match it against files. */
  readonly glob: boolean;
}

/** What a variable may hold where it is used: every possible value, or unknown. */
export type VariableValues = readonly string[] | "dynamic";

/** Looks a variable up for expansion. */
export type VariableLookup = (name: string, at: number) => VariableValues;

/** Reports a construct that runs code or cannot be judged (e.g. `${v@P}`). */
export type ProblemSink = (reason: string, node: SyntaxNode) => void;

/** At most this many alternative expansions are followed; more count as dynamic. */
const MAX_ALTERNATIVES = 32;

/** Escaped form: a literal character that must not take part in brace, glob or field splitting. */
const ESCAPE = "\\";
const SPECIAL = /[\\*?[\]{},\s~]/;

function escapeAll(text: string): string {
  let out = "";
  for (const ch of text) out += SPECIAL.test(ch) ? ESCAPE + ch : ch;
  return out;
}

/** An unquoted expansion's value: glob characters stay live, whitespace splits fields. */
function escapeExpanded(text: string): string {
  let out = "";
  for (const ch of text) out += /[\\{},~]/.test(ch) ? ESCAPE + ch : ch;
  return out;
}

type Rendered = readonly string[] | null;

function product(a: Rendered, b: Rendered): Rendered {
  if (a === null || b === null) return null;
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return out.length > MAX_ALTERNATIVES ? null : out;
}

function interpretAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_m, e: string) => {
      switch (e[0]) {
        case "x":
        case "u":
        case "U":
          return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
        case "c":
          return String.fromCharCode((e.charCodeAt(1) ?? 64) & 31);
        case "n":
          return "\n";
        case "t":
          return "\t";
        case "r":
          return "\r";
        case "a":
          return "\x07";
        case "b":
          return "\b";
        case "e":
        case "E":
          return "\x1b";
        case "f":
          return "\f";
        case "v":
          return "\v";
        default:
          return /^[0-7]+$/.test(e) ? String.fromCharCode(Number.parseInt(e, 8)) : e;
      }
    },
  );
}

/** Backslashes inside double quotes escape only `$`, backquote, `"`, `\` and newline. */
function doubleQuotedLiteral(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c));
}

/** Expands words statically: quotes, escapes, known variables, tilde and braces. */
export class WordExpander {
  constructor(
    private readonly lookup: VariableLookup,
    private readonly problem: ProblemSink,
    private readonly home: string,
    /** The working directory, or undefined once the line may have left it. */
    private readonly cwd: () => string | undefined,
  ) {}

  /** Every field a word may expand to (alternatives flattened), or one dynamic word. */
  expand(node: SyntaxNode): Word[] {
    return this.expandMany([node]);
  }

  /**
   * Expands nodes that touch one another as the single word bash sees (the grammar sometimes
   * splits one word in two, as in `{/a/$X,b}`).
   */
  expandMany(nodes: readonly SyntaxNode[]): Word[] {
    let rendered: Rendered = [""];
    for (const node of nodes) rendered = product(rendered, this.render(node, false));
    const source = nodes.map((n) => n.text).join("");
    if (rendered === null) return [{ text: source, dynamic: true, glob: false }];
    const words: Word[] = [];
    try {
      for (const alternative of rendered) {
        for (const braced of braceExpand(alternative)) {
          for (const field of splitFields(braced)) words.push(this.finish(field));
        }
      }
    } catch (error) {
      if (error instanceof TooManyExpansions) return [{ text: source, dynamic: true, glob: false }];
      throw error;
    }
    return words;
  }

  /** The single static string a word stands for, or undefined when it is dynamic or several. */
  single(node: SyntaxNode): string | undefined {
    const words = this.expand(node);
    return words.length === 1 && !words[0]?.dynamic ? words[0]?.text : undefined;
  }

  private finish(field: string): Word {
    let text = field;
    if (text.startsWith("~")) {
      const m = /^~([^/\\]*)(.*)$/s.exec(text) as RegExpExecArray;
      const user = m[1] as string;
      if (user === "") text = escapeAll(this.home) + (m[2] as string);
      else if (user === "+" && this.cwd() !== undefined)
        text = escapeAll(this.cwd() as string) + (m[2] as string);
      else return { text: unescapeWord(field), dynamic: true, glob: false };
    }
    return { text: unescapeWord(text), dynamic: false, glob: hasGlob(text) };
  }

  private render(node: SyntaxNode, quoted: boolean): Rendered {
    switch (node.type) {
      case "word":
      case "number":
      case "extglob_pattern":
      case "regex":
      case "test_operator":
      case "variable_name":
        return [quoted ? escapeAll(node.text) : node.text.replace(/\\\n/g, "")];
      case "raw_string":
        return [escapeAll(node.text.slice(1, -1))];
      case "ansi_c_string":
        return [escapeAll(interpretAnsiC(node.text.slice(2, -1)))];
      case "string":
      case "translated_string":
        return this.renderString(node);
      case "concatenation":
      case "brace_expression": {
        let out: Rendered = [""];
        let at = node.startIndex;
        for (const child of node.children) {
          if (!child) continue;
          if (child.startIndex > at)
            out = product(out, [node.text.slice(at - node.startIndex, child.startIndex - node.startIndex)]);
          out = product(out, node.type === "brace_expression" ? [child.text] : this.render(child, quoted));
          at = child.endIndex;
        }
        return out;
      }
      case "simple_expansion":
      case "expansion":
        return this.renderExpansion(node, quoted);
      case "process_substitution":
        // The shell passes a pipe's path; what runs inside is judged as its own command.
        return ["/dev/fd/63"];
      default:
        return null;
    }
  }

  private renderString(node: SyntaxNode): Rendered {
    let out: Rendered = [""];
    const base = node.startIndex;
    let at = base + (node.type === "translated_string" ? 2 : 1);
    const end = node.endIndex - 1;
    for (const child of node.children) {
      if (!child || child.startIndex < at || child.endIndex > end) continue;
      if (child.startIndex > at)
        out = product(out, [
          escapeAll(doubleQuotedLiteral(node.text.slice(at - base, child.startIndex - base))),
        ]);
      out = product(
        out,
        child.type === "string_content"
          ? [escapeAll(doubleQuotedLiteral(child.text))]
          : this.render(child, true),
      );
      at = child.endIndex;
    }
    if (end > at)
      out = product(out, [escapeAll(doubleQuotedLiteral(node.text.slice(at - base, end - base)))]);
    return out;
  }

  private renderExpansion(node: SyntaxNode, quoted: boolean): Rendered {
    const text = node.text;
    if (/@[A-Za-z]\}$/.test(text) && !/\[@\]\}$/.test(text)) {
      // ${v@P} expands the value as a prompt, which runs any $(…) in it.
      if (/@P\}$/.test(text)) this.problem(`the ${text} expansion can run commands`, node);
      return null;
    }
    const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/.exec(text);
    if (!m) return null;
    const values = this.lookup((m[1] ?? m[2]) as string, node.startIndex);
    if (values === "dynamic") return null;
    return values.map((v) => (quoted ? escapeAll(v) : escapeExpanded(v)));
  }
}

function hasGlob(escaped: string): boolean {
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped[i];
    if (ch === ESCAPE) i++;
    else if (ch === "*" || ch === "?") return true;
    // `[` starts a bracket expression only when a `]` closes it (`[` alone is the test command).
    else if (ch === "[" && escaped.indexOf("]", i + 2) > 0) return true;
  }
  return false;
}

function unescapeWord(escaped: string): string {
  let out = "";
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped[i] as string;
    if (ch === ESCAPE && i + 1 < escaped.length) out += escaped[++i];
    else out += ch;
  }
  return out;
}

/** Splits on unescaped whitespace (left by unquoted expansions), as the shell's field splitting does. */
function splitFields(escaped: string): string[] {
  const out: string[] = [];
  let current = "";
  let any = false;
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped[i] as string;
    if (ch === ESCAPE && i + 1 < escaped.length) {
      current += ch + escaped[++i];
      any = true;
    } else if (/\s/.test(ch)) {
      if (current !== "") out.push(current);
      current = "";
    } else {
      current += ch;
      any = true;
    }
  }
  if (current !== "" || (!any && out.length === 0)) out.push(current);
  return out;
}

class TooManyExpansions extends Error {}

/** Brace expansion of an escaped word: `{a,b}` and `{1..3}`, nested, leftmost first. */
export function braceExpand(escaped: string, budget = { left: 256 }): string[] {
  let open = -1;
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped[i];
    if (ch === ESCAPE) {
      i++;
      continue;
    }
    if (ch === "{") {
      open = i;
      let depth = 0;
      const commas: number[] = [];
      let close = -1;
      for (let j = i + 1; j < escaped.length; j++) {
        const c = escaped[j];
        if (c === ESCAPE) {
          j++;
          continue;
        }
        if (c === "{") depth++;
        else if (c === "}") {
          if (depth === 0) {
            close = j;
            break;
          }
          depth--;
        } else if (c === "," && depth === 0) commas.push(j);
      }
      if (close < 0) break;
      const prefix = escaped.slice(0, open);
      const suffix = escaped.slice(close + 1);
      const inner = escaped.slice(open + 1, close);
      let parts: string[] | undefined;
      if (commas.length > 0) {
        parts = [];
        let from = open + 1;
        for (const c of [...commas, close]) {
          parts.push(escaped.slice(from, c));
          from = c + 1;
        }
      } else {
        const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(inner);
        if (range) parts = expandRange(range[1] as string, range[2] as string, range[3]);
      }
      if (!parts) continue;
      const out: string[] = [];
      for (const part of parts) {
        for (const expanded of braceExpand(prefix + part + suffix, budget)) {
          if (--budget.left < 0) throw new TooManyExpansions();
          out.push(expanded);
        }
      }
      return out;
    }
  }
  return [escaped];
}

function expandRange(from: string, to: string, step?: string): string[] | undefined {
  const numeric = /^-?\d+$/.test(from);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const inc = Math.abs(Number(step ?? 1)) || 1;
  if (Math.abs(b - a) / inc > 64) return undefined;
  const out: string[] = [];
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? inc : -inc)
    out.push(numeric ? String(v) : String.fromCharCode(v));
  return out;
}
