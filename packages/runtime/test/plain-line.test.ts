// Lines of plain words are parsed without the bash grammar (so the first `npm test` of a session
// does not wait for the grammar to load). Here the shortcut's trees are held to the grammar's own,
// node for node, over chosen lines and tens of thousands of random ones; and the permission check
// is shown to judge a plain line without loading the grammar, then to load it for any other line.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BashParserNotLoadedError,
  bashParserReady,
  loadBashParser,
  parseBashWithGrammar,
} from "../src/permissions/bash-parser.js";
import { assessCommandLine, assessShellCommand } from "../src/permissions/command-safety.js";
import { plainLineTree } from "../src/permissions/plain-line.js";
import type { SyntaxNode } from "../src/permissions/syntax-tree.js";

interface Shape {
  readonly type: string;
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly named: boolean;
  readonly error: boolean;
  readonly field?: string;
  readonly children: readonly Shape[];
}

/** Everything the command judge can read of a node, as plain data (fields found by name). */
function shape(node: SyntaxNode, field?: string): Shape {
  const fieldOf = (child: SyntaxNode) => {
    for (const name of ["name", "argument", "value", "body", "redirect", "destination", "operator"])
      if (node.childrenForFieldName(name).some((c) => c?.id === child.id)) return name;
    return undefined;
  };
  return {
    type: node.type,
    text: node.text,
    start: node.startIndex,
    end: node.endIndex,
    named: node.isNamed,
    error: node.isError || node.isMissing || node.hasError,
    ...(field !== undefined && { field }),
    children: node.children.filter((c): c is SyntaxNode => c !== null).map((c) => shape(c, fieldOf(c))),
  };
}

function grammarShape(line: string): Shape {
  const tree = parseBashWithGrammar(line);
  try {
    return shape(tree.rootNode);
  } finally {
    tree.delete();
  }
}

const project = { cwd: "/work/project", home: "/home/u", projectRoot: "/work/project" };

describe("a line of plain words", () => {
  it("is judged without loading the grammar; any other line loads it", async () => {
    // This file's module graph is its own: nothing has loaded the grammar yet.
    expect(bashParserReady()).toBe(false);
    const plain = await assessShellCommand("node test.js", project);
    expect(plain.commands.map((c) => c.command.argv)).toEqual([["node", "test.js"]]);
    expect(plain.understood).toBe(true);
    expect(bashParserReady()).toBe(false);
    expect(() => assessCommandLine("ls | wc -l", project)).toThrow(BashParserNotLoadedError);
    const piped = await assessShellCommand("ls | wc -l", project);
    expect(bashParserReady()).toBe(true);
    expect(piped.commands.map((c) => c.command.argv)).toEqual([["ls"], ["wc", "-l"]]);
    expect(piped.readOnly).toBe(true);
  });

  it("gets the grammar's tree for chosen lines, and the grammar for everything else", async () => {
    await loadBashParser();
    const plain = [
      "node test.js",
      "npm test",
      "npm run build:prod",
      "git status --short",
      "git log -n 5 --format=%H",
      "ls  -la",
      "echo 5 -5 08 5.5 0x1f 1e3 -",
      "echo a=b --c=d =e",
      "echo if then fi done in",
      "rm -rf build/",
      "time make",
      "test -f x",
      "1",
      "./run.sh +x ,y @z %1 a:b",
      "sudo rm x",
      "bash -c ls",
      "eval ls",
      "env A=1 ls",
      "xargs rm",
      "find . -delete",
    ];
    for (const line of plain) {
      const tree = plainLineTree(line);
      expect(tree, line).toBeDefined();
      expect(shape((tree as NonNullable<typeof tree>).rootNode), line).toEqual(grammarShape(line));
    }
    const grammarOnly = [
      "a=b",
      "A=1 ls",
      "if",
      "declare -x A",
      "export A=1",
      "unset A",
      "[ -f x ]",
      "ls *.js",
      "ls ~",
      "echo {a,b}",
      "echo 'a'",
      'echo "$HOME"',
      "ls # c",
      "ls; rm x",
      "ls && rm x",
      "ls > f",
      " ls",
      "ls ",
      "ls\tx",
      "echo é",
      "cat\\\nx",
      "",
    ];
    for (const line of grammarOnly) expect(plainLineTree(line), line).toBeUndefined();
  });

  it("gets the grammar's tree for random lines (fast-check, 30,000 lines)", async () => {
    await loadBashParser();
    const vocabulary = [
      "if",
      "then",
      "fi",
      "for",
      "in",
      "do",
      "done",
      "case",
      "esac",
      "while",
      "until",
      "select",
      "function",
      "coproc",
      "time",
      "declare",
      "typeset",
      "export",
      "readonly",
      "local",
      "unset",
      "unsetenv",
      "test",
      "[",
      "]",
      "[[",
      "!",
      "{",
      "}",
      "alias",
      "eval",
      "exec",
      "source",
      ".",
      ":",
      "-",
      "--",
      "0",
      "-0",
      "00",
      "-1",
      "+1",
      "1-",
      "1.",
      "a=",
      "=",
      "==",
      "%",
      "@",
      "@@",
      ",",
      "+",
      "_",
      "/",
      "ls",
      "node",
    ];
    const alphabet = "abAZ09_./:@%+,=-";
    const word = fc.oneof(
      fc.constantFrom(...vocabulary),
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength: 6 }),
    );
    const separator = fc.constantFrom(" ", " ", "  ");
    const first = fc.oneof(word, fc.constantFrom("ls", "node", "git", "./run", "a-b", "x.y"));
    const line = fc
      .tuple(first, fc.array(fc.tuple(separator, word), { maxLength: 5 }))
      .map(([name, rest]) => name + rest.map(([s, w]) => s + w).join(""));
    let plainLines = 0;
    fc.assert(
      fc.property(line, (text) => {
        const tree = plainLineTree(text);
        if (tree === undefined) return;
        plainLines++;
        expect(shape(tree.rootNode)).toEqual(grammarShape(text));
      }),
      { numRuns: 30_000 },
    );
    // The generator must actually exercise the shortcut.
    expect(plainLines).toBeGreaterThan(10_000);
  });
});
