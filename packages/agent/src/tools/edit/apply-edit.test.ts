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

describe("applyEdit layer 3: Unicode-normalised", () => {
  it.each([
    [
      "curly double quotes",
      "say(\u201Chello\u201D)\nnext\n",
      'say("hello")',
      'say("bye")',
      'say("bye")\nnext\n',
    ],
    ["curly apostrophe", "it\u2019s fine\n", "it's fine", "it is fine", "it is fine\n"],
    ["en and em dashes", "a \u2013 b \u2014 c\n", "a - b - c", "a, b, c", "a, b, c\n"],
    ["non-breaking space", "let\u00A0x = 1;\n", "let x = 1;", "let y = 1;", "let y = 1;\n"],
    ["full-width punctuation", "f\uFF08x\uFF09\uFF1B\n", "f(x);", "g(x);", "g(x);\n"],
    ["composed vs decomposed accents", "caf\u00E9 = 1\n", "cafe\u0301 = 1", "cafe = 2", "cafe = 2\n"],
    [
      "trailing whitespace in the file",
      "if x:   \n    go()\t\nend\n",
      "if x:\n    go()",
      "if y:\n    stop()",
      "if y:\n    stop()\nend\n",
    ],
  ])("%s", (_name, file, oldString, newString, expected) => {
    const r = applyEdit(file, oldString, newString);
    expect(r.content).toBe(expected);
    expect(r.strategy).toBe("unicode");
  });

  it.each([
    [
      "a whole changed line with its trailing odd spaces and CRLF",
      "a\u00A0b\u00A0 \r\nnext\r\n",
      "a b\n",
      "X\n",
      "X\r\nnext\r\n",
    ],
    ["a span ending inside a changed line", "caf\u00E9 au lait\n", "cafe\u0301 au", "tea", "tea lait\n"],
    ["a span starting inside a changed line", "x = \u201Cy\u201D; z\n", '"y"; z', "w", "x = w\n"],
    ["the last line without a line break", "one\n\u2018two\u2019  ", "'two'", "2", "one\n2"],
  ])("maps %s back to the original", (_name, file, oldString, newString, expected) => {
    expect(applyEdit(file, oldString, newString).content).toBe(expected);
  });

  it("keeps the file's typographic characters outside the replaced span", () => {
    const file = "title = \u201CDocs\u201D\nnote = \u201Cold\u2014text\u201D\nend = \u2018x\u2019\n";
    const r = applyEdit(file, 'note = "old-text"', 'note = "new"');
    expect(r.content).toBe('title = \u201CDocs\u201D\nnote = "new"\nend = \u2018x\u2019\n');
  });

  it("reports several normalised matches as ambiguous", () => {
    const err = failure(() => applyEdit("a \u2013 b\nc\na \u2014 b\n", "a - b", "x", { path: "f" }));
    expect(err.code).toBe("ambiguous");
    expect(err.lines).toEqual([1, 3]);
  });
});

describe("applyEdit layer 4: whitespace-flexible", () => {
  it("matches with other indentation and re-indents new_string to the file", () => {
    const file = "class A:\n    def f(self):\n        return 1\n";
    const r = applyEdit(file, "def f(self):\n    return 1", "def f(self):\n    x = 2\n    return x");
    expect(r.content).toBe("class A:\n    def f(self):\n        x = 2\n        return x\n");
    expect(r.strategy).toBe("whitespace");
  });

  it("turns space indentation into the file's tabs", () => {
    const file = "func() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
    const r = applyEdit(file, "    if ok {\n        run()\n    }", "    if ok {\n        run(fast)\n    }");
    expect(r.content).toBe("func() {\n\tif ok {\n\t\trun(fast)\n\t}\n}\n");
  });

  it("tolerates a leading and a trailing blank line in old_string", () => {
    const file = "a = 1\nb = 2\nc = 3\n";
    const r = applyEdit(file, "\nb = 2\n\n", "\nb = 20\n\n");
    expect(r).toMatchObject({ content: "a = 1\nb = 20\nc = 3\n", strategy: "whitespace" });
  });

  it("matches whitespace-only lines in the file against empty lines in old_string", () => {
    const file = "  if (a) {\n    run();\n    \n    stop();\n  }\n";
    const r = applyEdit(file, "if (a) {\nrun();\n\nstop();\n}", "if (b) {\n  run();\n}");
    expect(r).toMatchObject({ content: "  if (b) {\n    run();\n  }\n", strategy: "whitespace" });
  });

  it("keeps a file without a final line break without one", () => {
    expect(applyEdit("one\n  two", "two", "2").content).toBe("one\n  2");
    expect(applyEdit("x = 1\n    y = 2", "x = 1\ny = 2", "x = 3\ny = 4").content).toBe("x = 3\ny = 4");
  });

  it("deletes whole lines when new_string is empty", () => {
    expect(applyEdit("keep\n  drop  \nkeep2\n", "drop\n", "").content).toBe("keep\nkeep2\n");
  });

  it("keeps CRLF in a CRLF file", () => {
    const r = applyEdit("if x {\r\n\t\ty()\r\n}\r\n", "  y()", "  y()\n  z()");
    expect(r.content).toBe("if x {\r\n\t\ty()\r\n\t\tz()\r\n}\r\n");
  });
});

describe("applyEdit layer 5: tokens", () => {
  it("matches old_string with different spacing inside a line", () => {
    const file = "function add(a, b) {\n  return a + b;\n}\n";
    const r = applyEdit(file, "function add( a,b ){", "function add(a, b, c) {");
    expect(r).toMatchObject({ content: "function add(a, b, c) {\n  return a + b;\n}\n", strategy: "tokens" });
  });

  it("matches a call the model wrapped on several lines", () => {
    const file = "    result = compute(alpha, beta, gamma)\n    print(result)\n";
    const r = applyEdit(
      file,
      "result = compute(\n    alpha,\n    beta,\n    gamma\n)",
      "result = compute(alpha)",
    );
    expect(r.content).toBe("    result = compute(alpha)\n    print(result)\n");
  });

  it("re-indents following lines to the indentation where the match starts", () => {
    const file = "def f():\n    x = [1,2]\n    return x\n";
    const r = applyEdit(file, "x = [1, 2]", "x = [1, 2]\nx.append(3)");
    expect(r.content).toBe("def f():\n    x = [1, 2]\n    x.append(3)\n    return x\n");
  });
});

describe("applyEdit layer 6: fuzzy", () => {
  const file = [
    "def load(path):",
    "    with open(path) as handle:",
    "        data = json.load(handle)",
    "    return validate(data)",
    "",
    "def save(path, data):",
    "    pass",
    "",
  ].join("\n");

  it("replaces the unique best match within 10% and says it was fuzzy", () => {
    const old = "    with open(path) as handel:\n        data = json.load(handel)\n    return validate(data)";
    const r = applyEdit(file, old, "    return validate(read_json(path))");
    expect(r.strategy).toBe("fuzzy");
    expect(r.similarity).toBeGreaterThan(0.9);
    expect(r.content).toBe(
      "def load(path):\n    return validate(read_json(path))\n\ndef save(path, data):\n    pass\n",
    );
  });

  it("leaves short strings to the error message (one character may be the whole point)", () => {
    expect(failure(() => applyEdit("let x = 1;\n", "let x = 3;", "let x = 2;")).code).toBe("not_found");
  });

  it("does not accept a match beyond 10%", () => {
    const old = "    with open(file) as fh:\n        content = yaml.load(fh)\n    return check(content)";
    expect(failure(() => applyEdit(file, old, "x")).code).toBe("not_found");
  });

  it("refuses two equally close places", () => {
    const twice = "alpha = compute_total(items, 2)\nbeta = 0\nalpha = compute_total(items, 2)\n";
    const err = failure(() => applyEdit(twice, "alpha = compute_total(itemz, 2)", "alpha = 0"));
    expect(err.code).toBe("ambiguous");
  });
});

// The behaviours pi's edit tool tests for, with contents of our own.
describe("applyEdit passes pi's edit cases", () => {
  it.each([
    ["trailing whitespace stripped", "alpha   \nbeta  \ngamma\n", "alpha\nbeta\n", "new\n", "new\ngamma\n"],
    [
      "full-width punctuation in CJK text",
      "早上好，朋友\n早上好（朋友）\n",
      "早上好,朋友\n早上好(朋友)\n",
      "晚安\n",
      "晚安\n",
    ],
    ["compatibility forms", "ＸＹＺ４５６\nnaive\u0301\n", "XYZ456\nnaivé\n", "abc\n", "abc\n"],
    ["smart single quotes", "alert(\u2018hey\u2019);\n", "alert('hey');", "alert('ho');", "alert('ho');\n"],
    [
      "smart double quotes",
      "let s = \u201CHey there\u201D;\n",
      'let s = "Hey there";',
      'let s = "Bye";',
      'let s = "Bye";\n',
    ],
    [
      "Unicode dashes",
      "pages 3\u20139\nwait\u2014what\n",
      "pages 3-9\nwait-what",
      "pages 4-8\nok",
      "pages 4-8\nok\n",
    ],
    ["non-breaking space", "good\u00A0morning\n", "good morning", "good night", "good night\n"],
    [
      "exact preferred over normalised",
      "a = 'one';\nb = \u2018one\u2019;\n",
      "a = 'one';",
      "a = 'two';",
      "a = 'two';\nb = \u2018one\u2019;\n",
    ],
    [
      "the right line when the new text equals a neighbour",
      "fix me   \nlater   \n",
      "fix me\n",
      "later\n",
      "later\nlater   \n",
    ],
    ["LF old_string in a CRLF file", "uno\r\ndos\r\ntres\r\n", "dos\n", "DOS\n", "uno\r\nDOS\r\ntres\r\n"],
    ["BOM and CRLF kept", "\uFEFFuno\r\ndos\r\n", "dos\n", "DOS\n", "\uFEFFuno\r\nDOS\r\n"],
  ])("%s", (_name, file, oldString, newString, expected) => {
    expect(applyEdit(file, oldString, newString).content).toBe(expected);
  });

  it.each([
    ["not found, even normalised", "entirely other text\n", "nothing like this here", "not_found"],
    ["duplicates after normalisation", "same thing   \nsame thing\n", "same thing", "not_unique"],
    ["duplicates across CRLF and LF copies", "top\r\nend\r\n--\r\ntop\nend\n", "top\nend\n", "ambiguous"],
  ])("refuses %s", (_name, file, oldString, code) => {
    expect(failure(() => applyEdit(file, oldString, "x")).code).toBe(code);
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

  it("keeps a new_string with real line breaks as written", () => {
    const file = 'a = "x"\nb = 1\n';
    const r = applyEdit(file, 'a = \\"x\\"', 'a = "x\\n"\nc = 2');
    expect(r.content).toBe('a = "x\\n"\nc = 2\nb = 1\n');
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
    expect(err.message).toContain("exact match; line endings normalised; Unicode");
    expect(err.message).toContain("fuzzy (within 10%)");
    expect(err.message).toContain("closest text is at lines 3-4");
    expect(err.message).toContain("3 | def handler(event):");
    expect(err.message).toContain("4 |     return process(event)");
    expect(err.message).toContain("offset 3");
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
