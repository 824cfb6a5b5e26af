import { describe, expect, it } from "vitest";
import { parsePatch, patchPaths } from "./parser.js";
import { PatchParseError } from "./types.js";

const wrap = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

describe("parsePatch", () => {
  it("parses add, delete and update with move in one patch", () => {
    const patch = parsePatch(
      wrap(
        [
          "*** Add File: new.txt",
          "+one",
          "+two",
          "*** Delete File: old.txt",
          "*** Update File: a.ts",
          "*** Move to: b.ts",
          "@@ function f() {",
          " keep",
          "-gone",
          "+added",
        ].join("\n"),
      ),
    );
    expect(patch.operations).toEqual([
      { kind: "add", path: "new.txt", content: "one\ntwo\n" },
      { kind: "delete", path: "old.txt" },
      {
        kind: "update",
        path: "a.ts",
        moveTo: "b.ts",
        chunks: [
          {
            anchors: ["function f() {"],
            oldLines: ["keep", "gone"],
            newLines: ["keep", "added"],
            contextIndex: [0, -1],
            atEndOfFile: false,
          },
        ],
      },
    ]);
    expect(patchPaths(patch)).toEqual(["new.txt", "old.txt", "a.ts", "b.ts"]);
  });

  it("accepts a first hunk without @@, nested anchors, range headers and End of File", () => {
    const patch = parsePatch(
      wrap(
        [
          "*** Update File: x.py",
          " a",
          "-b",
          "+B",
          "@@ class C:",
          "@@     def m(self):",
          "-        pass",
          "+        return 1",
          "@@ -40,3 +40,3 @@ def tail():",
          "-end",
          "+END",
          "*** End of File",
        ].join("\n"),
      ),
    );
    const op = patch.operations[0];
    expect(op?.kind).toBe("update");
    if (op?.kind !== "update") return;
    expect(op.chunks.map((c) => c.anchors)).toEqual([[], ["class C:", "def m(self):"], ["def tail():"]]);
    expect(op.chunks.map((c) => c.atEndOfFile)).toEqual([false, false, true]);
    expect(op.chunks[1]?.newLines).toEqual(["        return 1"]);
  });

  it.each([
    ["heredoc with quotes", `<<'EOF'\n${wrap("*** Delete File: a")}\nEOF\n`],
    ["apply_patch heredoc", `apply_patch <<"EOF"\n${wrap("*** Delete File: a")}\nEOF`],
    ["bare heredoc", `<<EOF\n${wrap("*** Delete File: a")}\nEOF`],
    ["padded markers and CRLF", "  *** Begin Patch  \r\n*** Delete File: a\r\n *** End Patch\r\n\r\n"],
  ])("tolerates %s", (_name, text) => {
    expect(parsePatch(text).operations).toEqual([{ kind: "delete", path: "a" }]);
  });

  it("treats an empty line inside a hunk as an empty context line", () => {
    const op = parsePatch(wrap("*** Update File: f\n@@\n a\n\n-b\n+c")).operations[0];
    expect(op?.kind === "update" && op.chunks[0]?.oldLines).toEqual(["a", "", "b"]);
  });

  it("adds an empty file from an Add with no lines", () => {
    expect(parsePatch(wrap("*** Add File: empty.txt")).operations).toEqual([
      { kind: "add", path: "empty.txt", content: "" },
    ]);
  });

  it.each([
    [
      "no Begin marker",
      "*** Update File: a\n@@\n-x\n*** End Patch",
      /first line of the patch must be '\*\*\* Begin Patch'/,
    ],
    [
      "no End marker (cut off)",
      "*** Begin Patch\n*** Delete File: a",
      /last line of the patch must be '\*\*\* End Patch'/,
    ],
    ["unknown header", wrap("*** Rename File: a"), /not a valid file header/],
    ["bad hunk line", wrap("*** Update File: a\n@@\n x\n?y"), /Unexpected line in a hunk of 'a': '\?y'/],
    [
      "second hunk without @@",
      wrap("*** Update File: a\n@@\n-x\n+y\n*** End of File\nzz"),
      /must start with '@@'/,
    ],
    ["update without hunks", wrap("*** Update File: a"), /has no hunks/],
    ["empty hunk", wrap("*** Update File: a\n@@\n@@ x"), /has no lines/],
    ["header without path", wrap("*** Delete File:   "), /needs a path/],
  ])("rejects %s", (_name, text, message) => {
    expect(() => parsePatch(text)).toThrow(PatchParseError);
    expect(() => parsePatch(text)).toThrow(message);
  });

  it("reports the 1-based line of a malformed hunk line", () => {
    try {
      parsePatch("*** Begin Patch\n*** Update File: a\n@@\n x\n?y\n*** End Patch");
      expect.unreachable();
    } catch (err) {
      expect((err as PatchParseError).line).toBe(5);
    }
  });
});
