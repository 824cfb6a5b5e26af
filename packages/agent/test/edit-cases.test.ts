import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { editFileTool } from "../src/tools/edit-file.js";
import type { ToolOutput } from "../src/types/tool.js";

// The kinds of case pi's and gemini-cli's edit tools are tested on (smart quotes, dashes,
// non-breaking spaces, line endings, BOMs, over-escaping, ambiguous matches...), with contents of
// our own, run through edit_file on real files.

let dir: string;
let env: LocalExecutionEnvironment;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "edit-cases-"));
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const tool = editFileTool();
let serial = 0;
async function run(
  file: string,
  old_string: string,
  new_string: string,
  extra: Record<string, unknown> = {},
): Promise<{ out: ToolOutput; after: string; path: string }> {
  const path = `case-${serial++}.txt`;
  await writeFile(join(dir, path), file);
  const out = (await tool.executor({ file_path: path, old_string, new_string, ...extra }, env, {
    toolCallId: "t",
  })) as ToolOutput;
  return { out, after: await readFile(join(dir, path), "utf8"), path };
}

describe("edit cases whose right result is the edit", () => {
  it.each([
    ["an exact replacement", "alpha\nbeta\ngamma\n", "beta", "BETA", "alpha\nBETA\ngamma\n"],
    ["$ sequences taken literally", "cost = 0\n", "0", "$1 $& $$", "cost = $1 $& $$\n"],
    ["trailing whitespace in the file", "one   \ntwo\t\nthree\n", "one\ntwo\n", "2\n", "2\nthree\n"],
    [
      "curly single quotes in the file",
      "msg = \u2018hey\u2019\n",
      "msg = 'hey'",
      "msg = 'ho'",
      "msg = \u2018ho\u2019\n",
    ],
    [
      "curly double quotes in the file",
      "t = \u201Chi there\u201D;\n",
      't = "hi there";',
      't = "bye";',
      "t = \u201Cbye\u201D;\n",
    ],
    ["curly quotes written by the model", 'say("hi")\n', "say(\u201Chi\u201D)", 'say("yo")', 'say("yo")\n'],
    [
      "an en dash and an em dash in the file",
      "range 1\u20135\nwait\u2014no\n",
      "range 1-5\nwait-no",
      "range 2-6\nok",
      "range 2-6\nok\n",
    ],
    ["a non-breaking space in the file", "a\u00A0b = 1\n", "a b = 1", "a b = 2", "a\u00A0b = 2\n"],
    [
      "LF old text on a CRLF file",
      "uno\r\ndos\r\ntres\r\n",
      "dos\ntres\n",
      "DOS\ntres\n",
      "uno\r\nDOS\r\ntres\r\n",
    ],
    ["CRLF old text on an LF file", "uno\ndos\n", "uno\r\ndos\r\n", "1\r\n2\r\n", "1\n2\n"],
    ["a BOM kept", "\uFEFFhead\nbody\n", "body", "BODY", "\uFEFFhead\nBODY\n"],
    ["a BOM and CRLF kept", "\uFEFFa\r\nb\r\n", "b\n", "B\n", "\uFEFFa\r\nB\r\n"],
    [
      "an old string starting with a blank line",
      "x = 1\n\ny = 2\n",
      "\ny = 2",
      "\ny = 3",
      "x = 1\n\ny = 3\n",
    ],
    [
      "an old string starting with a line break inside CRLF",
      "x {\r\n\r\n\tb := 1\r\n}\r\n",
      "\n\tb := 1",
      "\n\tb := 2",
      "x {\r\n\r\n\tb := 2\r\n}\r\n",
    ],
    [
      "over-escaped newlines and quotes",
      'if (a) {\n  log("x");\n}\n',
      'if (a) {\\n  log(\\"x\\");',
      'if (a) {\\n  log(\\"y\\");',
      'if (a) {\n  log("y");\n}\n',
    ],
    [
      "an over-escaped tab",
      "func() {\n\treturn 1\n}\n",
      "\\treturn 1",
      "\\treturn 2",
      "func() {\n\treturn 2\n}\n",
    ],
    [
      "indentation lost in old and new",
      "class A:\n    def f(self):\n        pass\n",
      "def f(self):\n    pass",
      "def f(self):\n    return 1",
      "class A:\n    def f(self):\n        return 1\n",
    ],
    [
      "spaces for a tab file",
      "f() {\n\tif x {\n\t\ty()\n\t}\n}\n",
      "    if x {\n        y()",
      "    if x {\n        z()",
      "f() {\n\tif x {\n\t\tz()\n\t}\n}\n",
    ],
    ["pasted read_file line numbers", "a\nb\nc\n", "2 | b\n3 | c", "2 | B\n3 | c", "a\nB\nc\n"],
    ["replace all", "x.y\nx.z\n", "x.", "w.", "w.y\nw.z\n"],
    [
      "full-width punctuation in CJK text",
      "早上好，朋友\n早上好（朋友）\n",
      "早上好,朋友\n早上好(朋友)\n",
      "晚安\n",
      "晚安\n",
    ],
    [
      "full-width forms and a decomposed accent",
      "ＸＹＺ４５６\nnaive\u0301\n",
      "XYZ456\nnaivé\n",
      "abc\n",
      "abc\n",
    ],
    [
      "the right line when the new text equals a neighbour",
      "fix me   \nlater   \n",
      "fix me\n",
      "later\n",
      "later\nlater   \n",
    ],
  ])("%s", async (name, file, oldString, newString, expected) => {
    const { out, after } = await run(
      file,
      oldString,
      newString,
      name === "replace all" ? { replace_all: true } : {},
    );
    expect(out.output).not.toMatch(/^old_string/);
    expect(out.isError).toBeFalsy();
    expect(after).toBe(expected);
    expect(out.details?.diff).toMatch(/^\+/m);
  });
});

describe("edit cases whose right result is a refusal", () => {
  it.each([
    ["text not in the file", "alpha\nbeta\n", "gamma", "g", /not found/],
    ["two exact occurrences", "dup\nmid\ndup\n", "dup", "one", /matches 2 times.*lines 1, 3/s],
    [
      "several places after normalisation",
      "q = \u2018a\u2019\nq = \u201Ca\u201D\nq = \u2019a\u2019\n",
      "q = 'a'",
      "q = 1",
      /matches \d places/,
    ],
    ["duplicates across CRLF and LF copies", "top\r\nend\r\n--\ntop\nend\n", "top\nend", "x", /matches 2/],
    [
      "two fuzzy candidates (one character off in each)",
      "total = sum(items, 1)\nother()\ntotal = sum(items, 2)\n",
      "total = sum(itemz, 1)",
      "t = 0",
      /not found/,
    ],
    [
      "a stale context line",
      "a = 1\nb = 2\nc = 3\n",
      "a = 1\nb = 2Old\nc = 3",
      "a = 1\nb = 2Old\nc = 4",
      /> 2 \| b = 2/,
    ],
    ["identical strings", "a\n", "a", "a", /identical/],
  ])("%s", async (_name, file, oldString, newString, message) => {
    const { out, after } = await run(file, oldString, newString);
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(message);
    expect(after).toBe(file);
  });
});

describe("a refusal the model can act on", () => {
  it("a stale edit is refused, and the call built from the refusal's advice makes the intended change", async () => {
    const file = [
      "[package]",
      'name = "grep"',
      "",
      "[dependencies]",
      'matcher = { path = "../matcher" }',
      'printer = { path = "../printer" }',
      'regex = "1"',
      "",
    ].join("\n");
    // The model remembers one context line wrong and wants to bump regex.
    const first = await run(
      file,
      '[dependencies]\nmatcher = { path = "../matcherOld" }\nprinter = { path = "../printer" }\nregex = "1"',
      '[dependencies]\nmatcher = { path = "../matcherOld" }\nprinter = { path = "../printer" }\nregex = "2"',
    );
    expect(first.out.isError).toBe(true);
    expect(first.after).toBe(file);
    // What a model does with the message: take the numbered lines it shows as old_string...
    const shown = first.out.output
      .split("\n")
      .map((line) => /^[>~ ] +\d+ \| (.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => m[1] as string);
    expect(shown).toEqual([
      "[dependencies]",
      'matcher = { path = "../matcher" }',
      'printer = { path = "../printer" }',
      'regex = "1"',
    ]);
    expect(first.out.output).toMatch(/> 5 \| matcher = \{ path = "\.\.\/matcher" \}/);
    // ...and makes its change on them.
    const oldString = shown.join("\n");
    const second = await tool.executor(
      {
        file_path: first.path,
        old_string: oldString,
        new_string: oldString.replace('regex = "1"', 'regex = "2"'),
      },
      env,
      { toolCallId: "t2" },
    );
    expect((second as ToolOutput).isError).toBeFalsy();
    expect(await readFile(join(dir, first.path), "utf8")).toBe(file.replace('regex = "1"', 'regex = "2"'));
  });
});
