import type { SyntaxNode, SyntaxTree } from "./syntax-tree.js";

// Most command lines a model runs are one program with plain arguments (`npm test`, `node
// test.js`, `git status --short`). Their syntax tree is known without the grammar, and building it
// here spares the first such command the 20 ms of loading and compiling the grammar. Anything
// else (quotes, expansions, operators, keywords, assignments, globs, braces, comments, tildes,
// tabs, non-ASCII) goes to the grammar. A test holds this module to the grammar's trees.

/**
 * Words of letters, digits and punctuation that is literal to bash wherever it stands, separated
 * by spaces, with none at either end.
 */
const LINE = /^[A-Za-z0-9_./:@%+,=-]+(?: +[A-Za-z0-9_./:@%+,=-]+)*$/;
/**
 * A command name the grammar reads as one: letters, digits, `_`, `.`, `/` and inner `-` (at the
 * start of a line, `=`, `+=`, `@`, `%` and `:` take part in assignment and array syntax, and a
 * leading `-` is dropped).
 */
const COMMAND_NAME = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*$/;
/** Arguments the grammar reads as operators of a test expression. */
const OPERATOR_WORDS = new Set(["=", "=="]);
/** What the grammar reads as a number rather than a word. */
const NUMBER = /^-?[0-9]+$/;
/**
 * First words the grammar reads as something other than a command name: reserved words,
 * declaration and unset commands, and the test brackets.
 */
const NOT_A_COMMAND_NAME = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "coproc",
  "declare",
  "typeset",
  "export",
  "readonly",
  "local",
  "unset",
  "unsetenv",
]);

let ids = -1;

class PlainNode implements SyntaxNode {
  // Negative ids never meet the grammar's own (which are memory addresses).
  readonly id = ids--;
  parent: SyntaxNode | null = null;
  readonly isNamed = true;
  readonly isError = false;
  readonly isMissing = false;
  readonly hasError = false;

  constructor(
    readonly type: string,
    readonly text: string,
    readonly startIndex: number,
    readonly endIndex: number,
    readonly children: readonly PlainNode[],
    private readonly fields: readonly (string | undefined)[],
  ) {
    for (const child of children) child.parent = this;
  }

  get namedChildren(): PlainNode[] {
    return [...this.children];
  }

  get firstNamedChild(): PlainNode | null {
    return this.children[0] ?? null;
  }

  get lastNamedChild(): PlainNode | null {
    return this.children.at(-1) ?? null;
  }

  child(index: number): PlainNode | null {
    return this.children[index] ?? null;
  }

  childForFieldName(name: string): PlainNode | null {
    return this.children.find((_, i) => this.fields[i] === name) ?? null;
  }

  childrenForFieldName(name: string): PlainNode[] {
    return this.children.filter((_, i) => this.fields[i] === name);
  }

  descendantsOfType(type: string | readonly string[]): PlainNode[] {
    const types = typeof type === "string" ? [type] : type;
    const out: PlainNode[] = [];
    const visit = (node: PlainNode) => {
      for (const child of node.children) {
        if (types.includes(child.type)) out.push(child);
        visit(child);
      }
    };
    visit(this);
    return out;
  }
}

/**
 * The syntax tree bash's grammar gives a line of plain words (a program and its arguments), or
 * undefined when the line has anything else and needs the grammar.
 */
export function plainLineTree(line: string): SyntaxTree | undefined {
  if (line.length > 4096 || !LINE.test(line)) return undefined;
  const words: PlainNode[] = [];
  const fields: string[] = [];
  let at = 0;
  for (const text of line.split(/ +/)) {
    const start = line.indexOf(text, at);
    const end = start + text.length;
    at = end;
    const leaf = new PlainNode(NUMBER.test(text) ? "number" : "word", text, start, end, [], []);
    if (words.length === 0) {
      if (!COMMAND_NAME.test(text) || NOT_A_COMMAND_NAME.has(text)) return undefined;
      words.push(new PlainNode("command_name", text, start, end, [leaf], [undefined]));
      fields.push("name");
    } else {
      if (OPERATOR_WORDS.has(text)) return undefined;
      words.push(leaf);
      fields.push("argument");
    }
  }
  const command = new PlainNode("command", line, 0, line.length, words, fields);
  const root = new PlainNode("program", line, 0, line.length, [command], [undefined]);
  return { rootNode: root, delete() {} };
}

/** True when the line is plain words that plainLineTree() parses without the grammar. */
export function isPlainLine(line: string): boolean {
  return plainLineTree(line) !== undefined;
}
