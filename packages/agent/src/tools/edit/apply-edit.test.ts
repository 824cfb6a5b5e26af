import { describe, expect, it } from "vitest";
import { applyEdit, EditError } from "./apply-edit.js";
import { addedPlaceholders } from "./placeholders.js";

function failure(fn: () => unknown): EditError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EditError);
    return err as EditError;
  }
  throw new Error("expected an EditError");
}

describe("applyEdit layer 1: exact", () => {
  it("replaces a unique match and reports it as exact", () => {
    const r = applyEdit("a\nb\nc\n", "b", "B");
    expect(r).toMatchObject({ content: "a\nB\nc\n", replacements: 1, strategy: "exact", firstLine: 2 });
  });

  it("replace_all replaces every occurrence", () => {
    const r = applyEdit("x y x y x\n", "x", "z", { replaceAll: true });
    expect(r).toMatchObject({ content: "z y z y z\n", replacements: 3, strategy: "exact" });
  });

  it("refuses a repeated old_string, saying how many and where", () => {
    const err = failure(() => applyEdit("x\ny\nx\n", "x", "z", { path: "f.txt" }));
    expect(err.code).toBe("not_unique");
    expect(err.matches).toBe(2);
    expect(err.lines).toEqual([1, 3]);
    expect(err.message).toMatch(/matches 2 times in f\.txt \(lines 1, 3\).*replace_all/s);
  });

  it("treats $ patterns in new_string literally", () => {
    expect(applyEdit("price = 1\n", "1", "$& $1 $$").content).toBe("price = $& $1 $$\n");
  });

  it("refuses identical strings and an empty old_string on a non-empty file", () => {
    expect(failure(() => applyEdit("x\n", "x", "x")).code).toBe("no_change");
    expect(failure(() => applyEdit("x\n", "", "y")).message).toMatch(/old_string is empty/);
  });
});

describe("applyEdit layer 2: line endings", () => {
  it("matches LF old_string in a CRLF file and keeps CRLF and the BOM", () => {
    const r = applyEdit("\uFEFFfirst\r\nsecond\r\nthird\r\n", "first\nsecond", "1st\n2nd\nextra");
    expect(r.content).toBe("\uFEFF1st\r\n2nd\r\nextra\r\nthird\r\n");
    expect(r.strategy).toBe("line-endings");
  });

  it("matches CRLF old_string in an LF file and writes LF", () => {
    const r = applyEdit("one\ntwo\nthree\n", "one\r\ntwo\r\n", "uno\r\ndos\r\n");
    expect(r.content).toBe("uno\ndos\nthree\n");
  });

  it("keeps a mixed file's line endings line by line", () => {
    const r = applyEdit("a\r\nb\r\nc\nd\n", "a\nb", "A\nB");
    expect(r.content).toBe("A\r\nB\r\nc\nd\n");
    expect(applyEdit("a\r\nb\nc\r\n", "b", "B").content).toBe("a\r\nB\nc\r\n");
  });

  it("a single-line exact match in a CRLF file gets CRLF in a multi-line new_string", () => {
    const r = applyEdit("x = 1\r\ny = 2\r\n", "x = 1", "x = 1\nz = 3");
    expect(r).toMatchObject({ content: "x = 1\r\nz = 3\r\ny = 2\r\n", strategy: "exact" });
  });
});

describe("applyEdit: typographic quotes, dashes and spaces", () => {
  it.each([
    // The file's characters stay where the model kept the text; its own new text is as written.
    [
      "curly double quotes",
      "say(\u201Chello\u201D)\nnext\n",
      'say("hello")',
      'say("bye")',
      "say(\u201Cbye\u201D)\nnext\n",
    ],
    ["curly apostrophe", "it\u2019s fine\n", "it's fine", "it is fine", "it is fine\n"],
    ["en and em dashes", "a \u2013 b \u2014 c\n", "a - b - c", "a, b, c", "a, b, c\n"],
    ["non-breaking space", "let\u00A0x = 1;\n", "let x = 1;", "let y = 1;", "let\u00A0y = 1;\n"],
    ["full-width punctuation", "f\uFF08x\uFF09\uFF1B\n", "f(x);", "g(x);", "g\uFF08x\uFF09\uFF1B\n"],
    [
      "curly quotes written by the model",
      'x = "a"\ny = 1\n',
      "x = \u201Ca\u201D",
      'x = "b"',
      'x = "b"\ny = 1\n',
    ],
  ])("%s", (_name, file, oldString, newString, expected) => {
    const r = applyEdit(file, oldString, newString);
    expect(r.content).toBe(expected);
    expect(r.strategy).toBe("typographic");
  });

  it("keeps the file's typographic characters outside the replaced span", () => {
    const file = "title = \u201CDocs\u201D\nnote = \u201Cold\u2014text\u201D\nend = \u2018x\u2019\n";
    const r = applyEdit(file, 'note = "old-text"', "note = 1");
    expect(r.content).toBe("title = \u201CDocs\u201D\nnote = 1\nend = \u2018x\u2019\n");
  });

  it("matches composed and decomposed accents as the same line", () => {
    const r = applyEdit("caf\u00E9 = 1\nnext\n", "cafe\u0301 = 1\n", "tea = 2\n");
    expect(r.content).toBe("tea = 2\nnext\n");
  });

  it("refuses several normalised matches as ambiguous", () => {
    const err = failure(() => applyEdit("a \u2013 b\nc\na \u2014 b\n", "a - b", "x", { path: "f" }));
    expect(err.code).toBe("ambiguous");
    expect(err.lines).toEqual([1, 3]);
  });
});

describe("applyEdit: trailing whitespace", () => {
  it("matches lines whose trailing whitespace the model left out; new lines are as written", () => {
    const r = applyEdit("if x:   \n    go()\t\nend\n", "if x:\n    go()", "if y:\n    stop()");
    expect(r).toMatchObject({ content: "if y:\n    stop()\nend\n", strategy: "trailing-whitespace" });
  });

  it("takes the model's (absent) trailing whitespace on lines it keeps", () => {
    const r = applyEdit("a  \n  \nb\n", "a\n\nb", "a\n\nc");
    expect(r.content).toBe("a\n\nc\n");
  });
});

describe("applyEdit: a uniform indentation shift", () => {
  it("adds the file's extra indentation to every new line", () => {
    const file = "class A:\n    def f(self):\n        return 1\n";
    const r = applyEdit(file, "def f(self):\n    return 1", "def f(self):\n    x = 2\n    return x");
    expect(r.content).toBe("class A:\n    def f(self):\n        x = 2\n        return x\n");
    expect(r.strategy).toBe("indentation");
  });

  it("removes indentation the model added to every line", () => {
    const file = "if (a) {\n  run();\n}\n";
    const r = applyEdit(file, "    if (a) {\n      run();\n    }", "    if (b) {\n      run();\n    }");
    expect(r.content).toBe("if (b) {\n  run();\n}\n");
  });

  it("refuses a shift that is not the same on every line", () => {
    const file = "def f():\n    if x:\n        y()\n";
    const err = failure(() => applyEdit(file, "  if x:\n  y()", "  if x:\n  z()"));
    expect(err.code).toBe("not_found");
  });

  it("refuses when a new line is shallower than the shift it would need to lose", () => {
    const file = "a {\n  b\n}\n";
    const err = failure(() => applyEdit(file, "    b", "    b\n c"));
    expect(err.code).toBe("unmappable");
    expect(err.message).toContain("line 2");
  });

  it("keeps CRLF in a CRLF file", () => {
    const r = applyEdit("if x {\r\n    y()\r\n}\r\n", "      y()", "      y()\n      z()");
    expect(r.content).toBe("if x {\r\n    y()\r\n    z()\r\n}\r\n");
  });
});

describe("applyEdit: tabs and spaces", () => {
  it("turns space indentation into the file's tabs, deeper new lines included", () => {
    const file = "func() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
    const r = applyEdit(
      file,
      "    if ok {\n        run()\n    }",
      "    if ok {\n        run()\n        if more {\n            again()\n        }\n    }",
    );
    expect(r.content).toBe("func() {\n\tif ok {\n\t\trun()\n\t\tif more {\n\t\t\tagain()\n\t\t}\n\t}\n}\n");
    expect(r.strategy).toBe("tabs-spaces");
  });

  it("turns tabs into the file's spaces", () => {
    const file = "def f():\n    if x:\n        y()\n    return 1\n";
    const r = applyEdit(file, "\tif x:\n\t\ty()", "\tif x:\n\t\ty()\n\t\tz()");
    expect(r.content).toBe("def f():\n    if x:\n        y()\n        z()\n    return 1\n");
  });

  it("refuses to guess a continuation line's alignment in a tab-indented file", () => {
    const file = "int\nf(void)\n{\n\tcall(a);\n\treturn (0);\n}\n";
    const err = failure(() => applyEdit(file, "    call(a);", "    call(a,\n        b);"));
    expect(err.code).toBe("unmappable");
  });
});

describe("applyEdit: line breaks and byte-order marks", () => {
  it("writes CRLF, not CR CR LF, when LF text starts at a line break of a CRLF file", () => {
    const r = applyEdit("x {\r\n\r\n\tb := 1\r\n}\r\n", "\n\tb := 1", "\n\tb := 2");
    expect(r.content).toBe("x {\r\n\r\n\tb := 2\r\n}\r\n");
  });

  it("removes a BOM when old_string starts with one and new_string does not", () => {
    const r = applyEdit("\uFEFFpackage a\n", "\uFEFFpackage a", "package a");
    expect(r.content).toBe("package a\n");
  });

  it("keeps the BOM otherwise", () => {
    expect(applyEdit("\uFEFFpackage a\n", "package a", "package b").content).toBe("\uFEFFpackage b\n");
  });
});

describe("applyEdit: read_file line numbers in old_string", () => {
  it("strips them from old_string and new_string when every old line has one", () => {
    const file = "one\n  two\nthree\n";
    const r = applyEdit(file, "2 |   two\n3 | three", "2 |   two\n3 | THREE");
    expect(r).toMatchObject({ content: "one\n  two\nTHREE\n", lineNumbersRemoved: true });
  });

  it("leaves them when the numbers do not run on", () => {
    expect(failure(() => applyEdit("a\nb\n", "1 | a\n5 | b", "x")).code).toBe("not_found");
  });
});

describe("applyEdit never applies stale text", () => {
  it("refuses an old_string with one line that differs from the file, showing the file's lines marked", () => {
    const file = '[deps]\nmatcher = { path = "../matcher" }\nother = 1\n';
    const err = failure(() =>
      applyEdit(file, '[deps]\nmatcher = { path = "../matcherOld" }\nother = 1', "[deps]\nother = 2", {
        path: "Cargo.toml",
      }),
    );
    expect(err.code).toBe("not_found");
    expect(err.message).toContain('> 2 | matcher = { path = "../matcher" }');
    expect(err.message).toContain("  1 | [deps]");
    expect(err.lines).toEqual([1]);
  });
});

describe("applyEdit with over-escaped strings", () => {
  it('reads \\n and \\" back when only that matches, in new_string too', () => {
    const file = 'function f() {\n  console.log("hi");\n  return 1;\n}\n';
    const r = applyEdit(
      file,
      'console.log(\\"hi\\");\\n  return 1;',
      'console.log(\\"bye\\");\\n  return 2;',
    );
    expect(r).toMatchObject({ strategy: "exact", unescaped: true });
    expect(r.content).toBe('function f() {\n  console.log("bye");\n  return 2;\n}\n');
  });

  it("refuses a new_string with real line breaks when old_string had only written-out ones", () => {
    const file = 'a = "x"\nb = 1\n';
    expect(failure(() => applyEdit(file, 'a = \\"x\\"\\nb = 1', 'a = "y"\nb = 1')).code).toBe("not_found");
  });

  it("leaves escapes alone when the escaped text is in the file", () => {
    const file = 'print("a\\nb")\n';
    const r = applyEdit(file, 'print("a\\nb")', 'print("a\\tb")');
    expect(r.unescaped).toBeUndefined();
    expect(r.content).toBe('print("a\\tb")\n');
  });
});

describe("applyEdit failures tell the model what to do", () => {
  it("not found: names the layers and shows the closest lines with numbers", () => {
    const file = "import os\n\ndef handler(event):\n    return process(event)\n\nprint('done')\n";
    const err = failure(() =>
      applyEdit(file, "def handler(request, ctx):\n    return respond(request)", "x", { path: "app.py" }),
    );
    expect(err.code).toBe("not_found");
    expect(err.message).toContain("not found in app.py");
    expect(err.message).toContain("tried: exact; line endings; trailing whitespace");
    expect(err.message).toContain("closest lines are 3-4");
    expect(err.message).toContain("> 3 | def handler(event):");
    expect(err.message).toContain("> 4 |     return process(event)");
    expect(err.lines).toEqual([3]);
  });

  it("refuses omission placeholders in new_string and changes nothing", () => {
    const file = "function a() {\n  one();\n  two();\n  three();\n}\n";
    const err = failure(() =>
      applyEdit(
        file,
        "function a() {\n  one();\n  two();\n  three();\n}",
        "function a() {\n  zero();\n  // ... rest of code\n}",
      ),
    );
    expect(err.code).toBe("placeholder");
    expect(err.message).toContain('"// ... rest of code"');
  });

  it("accepts a placeholder-like comment that old_string already has", () => {
    const file = "x = 1\n# existing code here\n";
    expect(applyEdit(file, "x = 1\n# existing code here", "x = 2\n# existing code here").content).toBe(
      "x = 2\n# existing code here\n",
    );
  });
});

describe("omission placeholders", () => {
  it.each([
    "// ... rest of code",
    "# existing code here",
    "/* ... existing code ... */",
    "<!-- rest of the file unchanged -->",
    "  // ...",
    "# ... (remaining methods unchanged)",
    "-- rest of the function omitted for brevity",
    "{/* other props */}",
  ])("detects %j", (line) => {
    expect(addedPlaceholders("", `a\n${line}\nb`)).toEqual([line.trim()]);
  });

  it.each([
    "x = ...  # Ellipsis is Python code",
    "...",
    "// rest is explained in the README",
    "# this loads the existing config file",
    'print("rest of code")',
  ])("leaves %j alone", (line) => {
    expect(addedPlaceholders("", line)).toEqual([]);
  });
});
