import { describe, expect, it } from "vitest";
import { applyEdit, EditError } from "./apply-edit.js";

describe("applyEdit", () => {
  it.each([
    ["exact, unique", "a\nb\nc\n", "b", "B", false, "a\nB\nc\n", 1, "exact"],
    ["replace_all", "x y x y x\n", "x", "z", true, "z y z y z\n", 3, "exact"],
    ["multi-line exact", "one\ntwo\nthree\n", "one\ntwo\n", "1\n2\n", false, "1\n2\nthree\n", 1, "exact"],
    [
      "trailing whitespace ignored",
      "if x:  \n    go()\t\nend\n",
      "if x:\n    go()",
      "if y:\n    stop()",
      false,
      "if y:\n    stop()\nend\n",
      1,
      "trailing-whitespace",
    ],
    [
      "indentation ignored, file indentation re-applied",
      "class A:\n    def f(self):\n        return 1\n",
      "def f(self):\n    return 1",
      "def f(self):\n    x = 2\n    return x",
      false,
      "class A:\n    def f(self):\n        x = 2\n        return x\n",
      1,
      "indentation",
    ],
    [
      "tabs in the file, spaces in old_string",
      "func() {\n\tif ok {\n\t\trun()\n\t}\n}\n",
      "    if ok {\n        run()\n    }",
      "    if ok {\n        run(fast)\n    }",
      false,
      "func() {\n\tif ok {\n\t\trun(fast)\n\t}\n}\n",
      1,
      "indentation",
    ],
    [
      "Unicode punctuation normalised",
      "msg = \u201CIt\u2019s done\u201D \u2014 ok\u00A0\n",
      'msg = "It\'s done" - ok',
      'msg = "finished"',
      false,
      'msg = "finished"\n',
      1,
      "unicode",
    ],
  ])("%s", (_name, file, oldString, newString, replaceAll, expected, replacements, tolerance) => {
    const result = applyEdit(file, oldString, newString, { replaceAll });
    expect(result.content).toBe(expected);
    expect(result.replacements).toBe(replacements);
    expect(result.tolerance).toBe(tolerance);
  });

  it("keeps CRLF line endings and the BOM, with LF old/new strings", () => {
    const file = "\uFEFFfirst\r\nsecond\r\nthird\r\n";
    const result = applyEdit(file, "first\nsecond", "1st\n2nd\nextra");
    expect(result.content).toBe("\uFEFF1st\r\n2nd\r\nextra\r\nthird\r\n");
  });

  it("leaves a mixed-ending file's other lines untouched", () => {
    const file = "a\r\nb\nc\r\n";
    expect(applyEdit(file, "b", "B").content).toBe("a\r\nB\nc\r\n");
  });

  it.each([
    [
      "not unique",
      "x\nx\n",
      "x",
      "y",
      /matches 2 times in f\.txt \(lines 1, 2\).*replace_all/s,
      "not_unique",
    ],
    ["identical strings", "x\n", "x", "x", /identical/, "no_change"],
    [
      "ambiguous fuzzy match",
      "  x\n\tx\n",
      "x ",
      "y",
      /indentation ignored it matches 2 places \(lines 1, 2\)/,
      "ambiguous",
    ],
    ["empty old_string on a non-empty file", "x\n", "", "y", /old_string is empty/, "not_found"],
  ])("rejects %s", (_name, file, oldString, newString, message, code) => {
    try {
      applyEdit(file, oldString, newString, { path: "f.txt" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(EditError);
      expect((err as EditError).code).toBe(code);
      expect((err as EditError).message).toMatch(message);
    }
  });

  it("names the tolerances tried and shows the closest candidate with line numbers", () => {
    const file = "import os\n\ndef handler(event):\n    return process(event)\n\nprint('done')\n";
    try {
      applyEdit(file, "def handler(evt):\n    return process(evt)", "x", { path: "app.py" });
      expect.unreachable();
    } catch (err) {
      const message = (err as EditError).message;
      expect((err as EditError).code).toBe("not_found");
      expect(message).toContain("not found in app.py");
      expect(message).toContain(
        "exact match, trailing whitespace ignored, indentation ignored, Unicode punctuation and spaces normalised",
      );
      expect(message).toContain("Closest candidate (lines 3-4");
      expect(message).toContain("3 | def handler(event):");
      expect(message).toContain("4 |     return process(event)");
    }
  });

  it("deletes whole lines when new_string is empty under a fuzzy match", () => {
    expect(applyEdit("keep\n  drop  \nkeep2\n", "drop\n", "").content).toBe("keep\nkeep2\n");
  });
});
