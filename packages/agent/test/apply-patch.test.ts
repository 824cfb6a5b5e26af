import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { applyPatch, applyPatchTool } from "../src/tools/apply-patch/index.js";
import type { ToolOutput } from "../src/types/tool.js";

let dir: string;
let env: LocalExecutionEnvironment;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "apply-patch-"));
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const tool = applyPatchTool();
const run = async (patch: string) =>
  (await tool.executor({ patch }, env, { toolCallId: "t1" })) as ToolOutput;
const patchOf = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");
const put = async (name: string, content: string) => {
  await mkdir(join(dir, name, ".."), { recursive: true });
  await writeFile(join(dir, name), content);
};
const get = (name: string) => readFile(join(dir, name), "utf8");
const exists = (name: string) =>
  stat(join(dir, name)).then(
    () => true,
    () => false,
  );

describe("apply_patch on real files", () => {
  it("adds, updates, deletes and moves in one patch and reports A/M/D", async () => {
    await put("src/main.py", "def main():\n    print('hi')\n\nmain()\n");
    await put("old.txt", "bye\n");
    await put("util.py", "X = 1\n");
    const out = await run(
      patchOf(
        "*** Add File: docs/readme.md",
        "+# Title",
        "+",
        "*** Update File: src/main.py",
        "@@ def main():",
        "-    print('hi')",
        "+    print('hello')",
        "*** Delete File: old.txt",
        "*** Update File: util.py",
        "*** Move to: lib/util.py",
        "@@",
        "-X = 1",
        "+X = 2",
      ),
    );
    expect(out.isError).toBeFalsy();
    expect(out.output).toBe(
      [
        "Success. Updated the following files:",
        "A docs/readme.md",
        "M src/main.py",
        "D old.txt",
        "M lib/util.py (moved from util.py)",
      ].join("\n"),
    );
    expect(await get("docs/readme.md")).toBe("# Title\n\n");
    expect(await get("src/main.py")).toBe("def main():\n    print('hello')\n\nmain()\n");
    expect(await exists("old.txt")).toBe(false);
    expect(await exists("util.py")).toBe(false);
    expect(await get("lib/util.py")).toBe("X = 2\n");
    expect(out.details?.paths).toEqual(["docs/readme.md", "src/main.py", "old.txt", "lib/util.py"]);
    expect(out.details?.diff).toContain("+    print('hello')");
    expect(out.details?.diff).toContain("--- a/util.py");
    expect(out.details?.diff).toContain("+++ b/lib/util.py");
  });

  it("applies many hunks in order with anchors and an End of File hunk", async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
    await put("big.txt", `${lines.join("\n")}\n`);
    const out = await run(
      patchOf(
        "*** Update File: big.txt",
        "@@",
        " line 9",
        "-line 10",
        "+LINE 10",
        " line 11",
        "@@ line 30",
        "-line 31",
        "+LINE 31",
        "@@",
        " line 59",
        "-line 60",
        "+LINE 60",
        "*** End of File",
      ),
    );
    expect(out.isError).toBeFalsy();
    const expected = lines.map((l) => (["line 10", "line 31", "line 60"].includes(l) ? l.toUpperCase() : l));
    expect(await get("big.txt")).toBe(`${expected.join("\n")}\n`);
  });

  it("keeps CRLF line endings, a BOM and the file mode", async () => {
    await put("win.txt", "\uFEFFone\r\ntwo\r\nthree\r\n");
    const { chmod } = await import("node:fs/promises");
    await chmod(join(dir, "win.txt"), 0o751);
    const out = await run(patchOf("*** Update File: win.txt", "@@", " one", "-two", "+TWO", "+2.5"));
    expect(out.isError).toBeFalsy();
    expect(await get("win.txt")).toBe("\uFEFFone\r\nTWO\r\n2.5\r\nthree\r\n");
    expect((await stat(join(dir, "win.txt"))).mode & 0o777).toBe(0o751);
  });

  it("accepts a heredoc-wrapped patch", async () => {
    await put("a.txt", "x\n");
    const out = await run(`apply_patch <<'EOF'\n${patchOf("*** Update File: a.txt", "-x", "+y")}\nEOF\n`);
    expect(out.isError).toBeFalsy();
    expect(await get("a.txt")).toBe("y\n");
  });

  it("reports fuzzy matches and keeps the file's context lines", async () => {
    await put("f.js", "function f() {\t\n  return \u201Cx\u201D;\n}\n");
    const out = await run(
      patchOf("*** Update File: f.js", "@@", " function f() {", '-  return "x";', '+  return "y";', " }"),
    );
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain("hunk 1 matched with Unicode punctuation and spaces normalised");
    expect(await get("f.js")).toBe('function f() {\t\n  return "y";\n}\n');
  });

  it.each([
    [
      "Delete of a missing file",
      patchOf("*** Delete File: nope.txt"),
      /Cannot delete nope\.txt: the file does not exist/,
    ],
    [
      "Update of a missing file",
      patchOf("*** Update File: nope.txt", "@@", "-a", "+b"),
      /Cannot update nope\.txt/,
    ],
    [
      "a malformed patch",
      "*** Begin Patch\n*** Frobnicate: keep.txt\n*** End Patch",
      /not a valid file header/,
    ],
    [
      "a cut-off patch",
      "*** Begin Patch\n*** Update File: keep.txt\n@@\n-keep\n+changed",
      /must be '\*\*\* End Patch'/,
    ],
  ])("refuses %s and changes nothing", async (_name, patch, message) => {
    await put("keep.txt", "keep\n");
    await put("other.txt", "other\n");
    const out = await run(patch);
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/^apply_patch failed, no file was changed: /);
    expect(out.output).toMatch(message);
    expect(await get("keep.txt")).toBe("keep\n");
    expect(await get("other.txt")).toBe("other\n");
  });

  it("leaves every file untouched (bytes and mtimes) when the last hunk of a multi-file patch fails", async () => {
    await put("a.txt", "a1\na2\na3\n");
    await put("b.txt", "b1\nb2\n");
    await put("c.txt", "c1\nc2\nc3\n");
    const past = new Date(Date.now() - 60_000);
    for (const f of ["a.txt", "b.txt", "c.txt"]) await utimes(join(dir, f), past, past);
    const snapshot = async () =>
      Promise.all(
        ["a.txt", "b.txt", "c.txt"].map(
          async (f) => [f, await get(f), (await stat(join(dir, f))).mtimeMs] as const,
        ),
      );
    const before = await snapshot();
    const out = await run(
      patchOf(
        "*** Add File: new.txt",
        "+fresh",
        "*** Update File: a.txt",
        "@@",
        "-a2",
        "+A2",
        "*** Delete File: b.txt",
        "*** Update File: c.txt",
        "@@",
        " c1",
        "-c2",
        "+C2",
        "@@",
        "-c3 but different",
        "+nope",
      ),
    );
    expect(out.isError).toBe(true);
    expect(out.output).toContain("c.txt: hunk 2 of 2 (@@)");
    expect(out.output).toContain("The closest region is lines 3-3");
    expect(out.output).toContain("> 3 | c3\n    | c3 but different    <- the hunk's line");
    expect(await snapshot()).toEqual(before);
    expect(await exists("new.txt")).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(["a.txt", "b.txt", "c.txt"]);
  });

  it("refuses a hunk with a stale context line, and the hunk its refusal gives back applies", async () => {
    const file = [
      "package main",
      "",
      "func load(path string) error {",
      "\tdata, err := read(path)",
      "\tif err != nil {",
      "\t\treturn err",
      "\t}",
      "\treturn parse(data)",
      "}",
      "",
    ].join("\n");
    await put("load.go", file);
    // The model remembers `readFile` where the file says `read`, and writes spaces for tabs.
    const stale = patchOf(
      "*** Update File: load.go",
      "@@ func load(path string) error {",
      "     data, err := readFile(path)",
      "     if err != nil {",
      "-        return err",
      '+        return fmt.Errorf("load %s: %w", path, err)',
      "     }",
    );
    const refused = await run(stale);
    expect(refused.isError).toBe(true);
    expect(await get("load.go")).toBe(file);
    expect(refused.output).toContain("load.go: hunk 1 of 1 (@@ func load(path string) error {)");
    expect(refused.output).toContain("> 4 | \tdata, err := read(path)");
    const advice = refused.output.split("as the file has them:\n")[1];
    expect(advice).toBeDefined();
    const corrected = await run(patchOf("*** Update File: load.go", advice as string));
    expect(corrected.isError).toBeFalsy();
    expect(await get("load.go")).toBe(
      file.replace("\t\treturn err\n", '\t\treturn fmt.Errorf("load %s: %w", path, err)\n'),
    );
  });

  it("re-expresses a hunk written with spaces in a tab-indented file, and says so", async () => {
    await put("m.go", "func f() {\n\tif ok {\n\t\treturn\n\t}\n}\n");
    const out = await run(
      patchOf(
        "*** Update File: m.go",
        "@@",
        "     if ok {",
        "-        return",
        "+        log()",
        "+        return",
        "     }",
      ),
    );
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain(
      "hunk 1 matched with indentation re-expressed in the file's own (the file's tabs written as 4 spaces)",
    );
    expect(await get("m.go")).toBe("func f() {\n\tif ok {\n\t\tlog()\n\t\treturn\n\t}\n}\n");
    expect(out.details?.diff).toContain("+\t\tlog()");
  });

  it("renames a file with an Update that has a Move to and no hunk", async () => {
    await put("old/name.txt", "same\n");
    const out = await run(patchOf("*** Update File: old/name.txt", "*** Move to: new/name.txt"));
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain("M new/name.txt (moved from old/name.txt)");
    expect(await exists("old/name.txt")).toBe(false);
    expect(await get("new/name.txt")).toBe("same\n");
  });

  it("restores files already written when a later write fails", async () => {
    await put("a.txt", "one\n");
    await put("blocker", "a file where a directory is needed\n");
    const out = await run(
      patchOf("*** Update File: a.txt", "-one", "+two", "*** Add File: blocker/inner.txt", "+x"),
    );
    expect(out.isError).toBe(true);
    expect(out.output).toContain("Writing blocker/inner.txt failed");
    expect(out.output).toContain("the files written before it were restored");
    expect(await get("a.txt")).toBe("one\n");
    expect(await get("blocker")).toBe("a file where a directory is needed\n");
  });

  it("sees earlier operations of the same patch (delete then add the same path)", async () => {
    await put("x.txt", "old\n");
    const result = await applyPatch(patchOf("*** Delete File: x.txt", "*** Add File: x.txt", "+new"), env);
    expect(result.changes.map((c) => c.status)).toEqual(["D", "A"]);
    expect(await get("x.txt")).toBe("new\n");
  });

  it("declares every path the patch touches, move targets included, as targets", () => {
    const targets = tool.targets?.({
      patch: patchOf(
        "*** Add File: a",
        "+x",
        "*** Update File: b",
        "*** Move to: c",
        "@@",
        "-1",
        "+2",
        "*** Delete File: d",
      ),
    });
    expect(targets).toEqual(["a", "b", "c", "d"]);
    expect(tool.targets?.({ patch: "garbage" })).toEqual([]);
  });
});
