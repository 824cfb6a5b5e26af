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
    ["surrounding whitespace", "    a\n    b\n", "@@\n a\n-b\n+B", "    a\n    B\n", ["indentation"]],
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
    const file = "x\nmark\nx\nmark\nx\n";
    // Both hunks have the same context; the second must land on the second occurrence.
    const result = apply(file, "@@\n-mark\n+first\n@@\n-mark\n+second");
    expect(result.content).toBe("x\nfirst\nx\nsecond\nx\n");
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

  it("names the hunk, the missing lines and the nearest candidate when a hunk fails", () => {
    const file = "alpha\nbeta\ngamma\ndelta\n";
    try {
      apply(file, "@@\n-alpha\n+A\n@@\n gamma\n-delta\n+D\n@@\n-nothing like it\n+x");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PatchApplyError);
      const e = err as PatchApplyError;
      expect(e.hunk).toBe(3);
      expect(e.message).toContain("f.txt: hunk 3 of 3");
      expect(e.message).toContain("  nothing like it");
    }
    try {
      apply(file, "@@\n gamma\n-delt\n+D");
      expect.unreachable();
    } catch (err) {
      const e = err as PatchApplyError;
      expect(e.hunk).toBe(1);
      expect(e.message).toMatch(/Closest candidate \(lines 3-4/);
      expect(e.message).toContain("4 | delta");
    }
  });

  it("fails when an anchor is missing", () => {
    expect(() => apply("a\n", "@@ def nowhere():\n-a\n+b")).toThrow(/'@@ def nowhere\(\):' was not found/);
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
