import { structuredPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyChunks } from "./apply-chunks.js";
import { parsePatch } from "./parser.js";
import { PatchApplyError } from "./types.js";

// Applies the hunks of a single-Update patch body to `file`.
function apply(file: string, hunks: string) {
  const op = parsePatch(`*** Begin Patch\n*** Update File: f.txt\n${hunks}\n*** End Patch`).operations[0];
  if (op?.kind !== "update") throw new Error("expected an update");
  return applyChunks(file, op.chunks, "f.txt");
}

describe("applyChunks", () => {
  it.each([
    ["exact", "a\nb\nc\n", "@@\n a\n-b\n+B\n c", "a\nB\nc\n", []],
    ["trailing whitespace", "a  \nb\t\nc\n", "@@\n a\n-b\n+B\n c", "a  \nB\nc\n", ["trailing-whitespace"]],
    ["a uniform indentation shift", "    a\n    b\n", "@@\n a\n-b\n+B", "    a\n    B\n", ["indentation"]],
    [
      "Unicode punctuation",
      "say(\u201Chi\u201D)\u00A0\u2014 ok\nnext\n",
      '@@\n-say("hi") - ok\n+say("bye")\n next',
      'say("bye")\nnext\n',
      ["unicode"],
    ],
  ])("matches by %s", (_name, file, hunks, expected, fuzzy) => {
    const result = apply(file, hunks);
    expect(result.content).toBe(expected);
    expect(result.fuzzy.map((f) => f.tolerance)).toEqual(fuzzy);
  });

  it("applies hunks in file order, each searched after the previous one", () => {
    const file = "a\nmark\nx\nmark\nx\n";
    // The second hunk's line occurs twice in the file, but once after the first hunk.
    const result = apply(file, "@@\n a\n-mark\n+first\n@@\n-mark\n+second");
    expect(result.content).toBe("a\nfirst\nx\nsecond\nx\n");
  });

  it("refuses a hunk that fits more than one place, naming the places", () => {
    const file = "x\nmark\nx\nmark\nx\n";
    expect(() => apply(file, "@@\n-mark\n+first")).toThrow(
      /hunk 1 of 1 \(@@\): its context and removed lines fit 2 places \(exact match\): line 2, line 4\. A hunk must fit exactly one place/,
    );
  });

  it("uses @@ anchors, nested, to pick among identical blocks", () => {
    const file = [
      "class A:",
      "  def f():",
      "    return 0",
      "class B:",
      "  def f():",
      "    return 0",
      "",
    ].join("\n");
    const result = apply(file, "@@ class B:\n@@   def f():\n-    return 0\n+    return 2");
    expect(result.content).toBe(file.replace(/return 0\n$/, "return 2\n"));
  });

  it("matches an End of File hunk at the end even when the lines also occur earlier", () => {
    const file = "end\nmiddle\nend\n";
    expect(apply(file, "@@\n-end\n+END\n*** End of File").content).toBe("end\nmiddle\nEND\n");
  });

  it("inserts a pure addition at the end of the file, or after its anchor", () => {
    expect(apply("a\nb\n", "@@\n+c").content).toBe("a\nb\nc\n");
    expect(apply("a\nb\n", "@@ a\n+between").content).toBe("a\nbetween\nb\n");
  });

  it("keeps CRLF, BOM and a missing final newline where no hunk touches the end", () => {
    expect(apply("\uFEFFa\r\nb\r\n", "@@\n a\n-b\n+B").content).toBe("\uFEFFa\r\nB\r\n");
    expect(apply("a\nb\nc", "@@\n-a\n+A\n b").content).toBe("A\nb\nc");
  });

  it("ends the file with a line break when a hunk rewrites its last line (as codex does)", () => {
    expect(apply("a\nb", "@@\n a\n-b\n+B").content).toBe("a\nB\n");
  });

  it("drops a trailing empty context line that stands for the final newline", () => {
    expect(apply("a\nb\n", "@@\n a\n-b\n+B\n").content).toBe("a\nB\n");
  });

  it("names the hunk, shows the closest lines with numbers and marks, and rebuilds the hunk from the file", () => {
    const file = "alpha\nbeta\ngamma\ndelta\n";
    try {
      apply(file, "@@\n-alpha\n+A\n@@\n gamma\n-delta\n+D\n@@ def f\n-nothing like it\n+x");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PatchApplyError);
      const e = err as PatchApplyError;
      expect(e.hunk).toBe(3);
      expect(e.message).toContain(
        "f.txt: hunk 3 of 3 (@@ def f): its context and removed lines are not in the file",
      );
      expect(e.message).toContain("Its @@ line 'def f' is not in the file either.");
      expect(e.message).toContain("No line of the hunk is in the file");
    }
    try {
      apply(file, "@@\n beta\n gammaOld\n-delta\n+D");
      expect.unreachable();
    } catch (err) {
      const e = err as PatchApplyError;
      expect(e.hunk).toBe(1);
      expect(e.message).toContain("The closest region is lines 2-4");
      expect(e.message).toContain("  2 | beta");
      expect(e.message).toContain("> 3 | gamma\n    | gammaOld    <- the hunk's line");
      expect(e.message).toContain("@@\n beta\n gamma\n-delta\n+D");
    }
  });

  it("places a hunk by its context when its @@ line is missing or comes after it", () => {
    const file = "a\nb\nc\nlater\n";
    const missing = apply(file, "@@ def nowhere():\n a\n-b\n+B");
    expect(missing.content).toBe("a\nB\nc\nlater\n");
    expect(missing.fuzzy).toEqual([{ hunk: 1, tolerance: "exact", anchorIgnored: true }]);
    expect(apply(file, "@@ later\n a\n-b\n+B").content).toBe("a\nB\nc\nlater\n");
    // An @@ line that is there and leads to the hunk picks among identical blocks.
    expect(apply("f\nx\ng\nx\n", "@@ g\n-x\n+y").content).toBe("f\nx\ng\ny\n");
  });

  it("applies hunks written without @@ lines between them when they fit one way only", () => {
    const file = ["a", "b", "c", "d", "e", "f", "g", "h", "i", ""].join("\n");
    const merged = apply(file, " a\n-b\n+B\n c\n g\n-h\n+H\n i");
    expect(merged.content).toBe(file.replace("b\n", "B\n").replace("h\n", "H\n"));
    expect(merged.fuzzy).toEqual([{ hunk: 1, tolerance: "exact", pieces: 2 }]);
    // Two ways to cut it (the second piece fits after either "x"): refused.
    const twice = ["a", "b", "c", "d", "x", "y", "e", "x", "y", ""].join("\n");
    expect(() => apply(twice, " a\n-b\n+B\n c\n x\n-y\n+Y")).toThrow(/not in the file/);
    expect(apply(twice, " a\n-b\n+B\n c\n e\n x\n-y\n+Y").content).toBe(
      twice.replace("b\n", "B\n").replace(/y\n$/, "Y\n"),
    );
    // A piece that changes nothing is no hunk: refused.
    expect(() => apply(file, " a\n-b\n+B\n c\n g\n h")).toThrow(/not in the file/);
  });

  it("refuses a pure addition whose @@ line is missing or names several lines", () => {
    expect(() => apply("a\n", "@@ def nowhere():\n+b")).toThrow(/'def nowhere\(\):' is not in the file/);
    expect(() => apply("x\nx\n", "@@ x\n+b")).toThrow(/names 2 lines/);
  });
});

describe("applyChunks re-expresses noisy hunks in the file's own form", () => {
  it.each([
    [
      "tabs written as 4 spaces",
      "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
      "@@\n func f() {\n     if x {\n-        return 1\n+        y := 2\n+        return y\n     }",
      "func f() {\n\tif x {\n\t\ty := 2\n\t\treturn y\n\t}\n}\n",
    ],
    [
      "2-space units written as tabs",
      "def f\n  if x\n    1\n  end\nend\n",
      "@@\n def f\n \tif x\n-\t\t1\n+\t\t2\n+\t\tputs 3\n \tend",
      "def f\n  if x\n    2\n    puts 3\n  end\nend\n",
    ],
    [
      "every line one level shallower",
      "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n",
      "@@\n def f(self):\n-    return 1\n+    if self:\n+        return 2\n \n def g(self):",
      "class A:\n    def f(self):\n        if self:\n            return 2\n\n    def g(self):\n        pass\n",
    ],
    [
      "every line one level deeper",
      "a:\n  b: 1\n  c: 2\n",
      "@@\n     a:\n-      b: 1\n+      b: 3\n       c: 2",
      "a:\n  b: 3\n  c: 2\n",
    ],
    [
      "trailing whitespace dropped",
      "one  \ntwo\t\nthree\n",
      "@@\n one\n-two\n+TWO\n three",
      "one  \nTWO\nthree\n",
    ],
    [
      "curly quotes in the old lines",
      'say("hi")\nok\n',
      "@@\n-say(\u201Chi\u201D)\n+say(\u201Cbye\u201D)\n ok",
      'say("bye")\nok\n',
    ],
  ])("%s", (_name, file, hunks, expected) => {
    expect(apply(file, hunks).content).toBe(expected);
  });

  it("keeps the file's CRLF line endings under every layer", () => {
    expect(apply("a\r\n\tb\r\nc\r\n", "@@\n a\n-    b\n+    B\n c").content).toBe("a\r\n\tB\r\nc\r\n");
  });

  it("ends added lines with CRLF among the CRLF lines of a file with mixed line endings", () => {
    const file = "lf\na\r\nb\r\nc\r\n";
    expect(apply(file, "@@\n a\n-b\n+B\n+B2\n c").content).toBe("lf\na\r\nB\r\nB2\r\nc\r\n");
  });

  it("gives whitespace-only added lines the file's convention", () => {
    // Indented blank lines are shifted with the rest; an empty one stays empty where the file has only empty ones.
    const file = "class A\n  def f\n    1\n  end\nend\n";
    const result = apply(file, "@@\n def f\n   1\n+  \n+  2\n+\n end");
    expect(result.content).toBe("class A\n  def f\n    1\n    \n    2\n\n  end\nend\n");
  });

  it("refuses an empty added line under a shift when the file also has indented blank lines", () => {
    const file = "class A\n  def f\n    1\n    \n  end\nend\n";
    expect(() => apply(file, "@@\n def f\n   1\n+\n+  2\n   \n end")).toThrow(/cannot be re-indented/);
  });

  it("refuses indentation that is not one shift of every line", () => {
    const file = "if a {\n\tb()\n}\n";
    // The first line is as in the file, the second one level shallower: no single transform fits.
    expect(() => apply(file, "@@\n if a {\n-b()\n+c()\n }")).toThrow(/not in the file[\s\S]*~ 2 \| \tb\(\)/);
  });

  it("refuses added lines whose width the file writes both as tabs and as tabs plus spaces", () => {
    const file = "int\nf(void)\n{\n\tif (a &&\n\t    b)\n\t\treturn (1);\n\treturn (0);\n}\n";
    const hunk = "@@\n {\n-    if (a &&\n-        b)\n+    if (a ||\n+        c)\n         return (1);";
    expect(() => apply(file, hunk)).toThrow(/cannot be re-indented to the file's style without guessing/);
    // A file that also indents some lines with spaces only: a line takes the tabs of its sibling,
    // the nearest line before it at its width with only deeper lines between; the first line of a
    // new block has none, and is refused.
    const mixed = "class A\n{\n\tvoid F()\n\t{\n\t\tif (q)\n\t\t\tv();\n\t}\n        // aligned\n}\n";
    const firstInBlock = "@@\n     }\n+    void G()\n+    {\n+        x();\n+    }\n         // aligned";
    expect(() => apply(mixed, firstInBlock)).toThrow(/cannot be re-indented/);
    const siblings =
      "@@\n         if (q)\n             v();\n+        if (y)\n+        {\n+            z();\n+        }\n     }";
    expect(apply(mixed, siblings).content).toBe(
      "class A\n{\n\tvoid F()\n\t{\n\t\tif (q)\n\t\t\tv();\n\t\tif (y)\n\t\t{\n\t\t\tz();\n\t\t}\n\t}\n        // aligned\n}\n",
    );
    // A sibling of a tab-indented line at the same width is indented with tabs too.
    const sibling = "@@\n         return (1);\n+        return (2);\n     return (0);";
    expect(apply(file, sibling).content).toContain("\t\treturn (1);\n\t\treturn (2);\n");
  });

  it("removes a BOM the patch removes, and keeps one it does not mention", () => {
    expect(apply("\uFEFFa\nb\n", "@@\n-\uFEFFa\n+a\n b").content).toBe("a\nb\n");
    expect(apply("\uFEFFa\nb\n", "@@\n-a\n+A\n b").content).toBe("\uFEFFA\nb\n");
    expect(apply("\uFEFFa\nb\n", "@@\n \uFEFFa\n-b\n+B").content).toBe("\uFEFFa\nB\n");
  });

  it("refuses a changed context line even when everything else fits", () => {
    expect(() => apply("a\n  b\nc\n", "@@\n aOld\n-b\n+B\n c")).toThrow(/not in the file/);
  });
});

describe("applyChunks against the diff package", () => {
  it("reproduces any edit of a file with distinct lines from a v4a patch built from its unified diff", () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 3 }),
      add: fc.array(
        fc.string({ maxLength: 12 }).map((s) => `new ${s.replace(/\s/g, "_")}`),
        { maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.array(edit, { minLength: 1, maxLength: 6 }),
        (size, edits) => {
          const before = Array.from({ length: size }, (_, i) => `line ${i}`);
          const after = [...before];
          for (const e of edits) after.splice(e.at % (after.length + 1), e.remove, ...e.add);
          const oldText = `${before.join("\n")}\n`;
          const newText = after.length === 0 ? "" : `${after.join("\n")}\n`;
          const { hunks } = structuredPatch("f", "f", oldText, newText, undefined, undefined, { context: 3 });
          const body = hunks.flatMap((h) => ["@@", ...h.lines.filter((l) => !l.startsWith("\\"))]);
          if (body.length === 0) return;
          const op = parsePatch(
            ["*** Begin Patch", "*** Update File: f", ...body, "*** End Patch"].join("\n"),
          ).operations[0];
          if (op?.kind !== "update") throw new Error("expected an update");
          expect(applyChunks(oldText, op.chunks, "f").content).toBe(newText);
        },
      ),
      { numRuns: 300 },
    );
  });
});
