import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createGeminiProfile } from "../src/profiles/gemini/index.js";
import { dispatchToolCalls } from "../src/tools/dispatch.js";
import { editFileTool } from "../src/tools/edit-file.js";
import { ToolRegistry } from "../src/tools/registry.js";
import type { ToolOutput } from "../src/types/tool.js";

let dir: string;
let env: LocalExecutionEnvironment;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "edit-file-"));
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const tool = editFileTool();
const edit = async (args: Record<string, unknown>) =>
  (await tool.executor(args, env, { toolCallId: "t1" })) as ToolOutput;
const put = (name: string, content: string | Buffer) => writeFile(join(dir, name), content);
const get = (name: string) => readFile(join(dir, name), "utf8");

describe("edit_file on real files", () => {
  it.each([
    ["exact", "a = 1\nb = 2\n", "b = 2", "b = 3", false, "a = 1\nb = 3\n", /1 replacement at line 2\./],
    ["replace_all", "x\ny\nx\n", "x", "z", true, "z\ny\nz\n", /2 replacements at line 1\./],
    [
      "trailing whitespace",
      "go()   \nstop()\n",
      "go()\nstop()",
      "run()",
      false,
      "run()\n",
      /trailing whitespace ignored/,
    ],
    [
      "indentation",
      "def f():\n    if x:\n        y()\n",
      "if x:\n    y()",
      "if x:\n    z()",
      false,
      "def f():\n    if x:\n        z()\n",
      /indentation shifted uniformly/,
    ],
    [
      "typographic quotes",
      "say \u2018hi\u2019\n",
      "say 'hi'",
      "say 'bye'",
      false,
      // The quotes the model kept are the file's quotes: they stay curly.
      "say \u2018bye\u2019\n",
      /typographic quotes/,
    ],
  ])("edits by %s", async (_name, file, old_string, new_string, replace_all, expected, message) => {
    await put("f.txt", file);
    const out = await edit({ file_path: "f.txt", old_string, new_string, replace_all });
    expect(out.isError).toBeFalsy();
    expect(await get("f.txt")).toBe(expected);
    expect(out.output).toMatch(message);
    expect(out.details?.diff).toMatch(/^\+[^+]/m);
    expect(out.details?.diff).toMatch(/^--- a\/f\.txt$/m);
    expect(out.output).toContain(out.details?.diff as string);
  });

  it.each([
    [
      "not found",
      "alpha\nbeta\n",
      { old_string: "gamma", new_string: "x" },
      /not found in f\.txt.*tried: exact/,
    ],
    ["not unique", "x\nx\n", { old_string: "x", new_string: "y" }, /matches 2 times.*replace_all/s],
    ["identical", "x\n", { old_string: "x", new_string: "x" }, /identical/],
    [
      "empty old_string on a non-empty file",
      "x\n",
      { old_string: "", new_string: "y" },
      /already exists and is not empty/,
    ],
  ])("refuses %s and leaves the file as it was", async (_name, file, args, message) => {
    await put("f.txt", file);
    const out = await edit({ file_path: "f.txt", ...args });
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(message);
    expect(await get("f.txt")).toBe(file);
  });

  it("shows the closest candidate lines with numbers when nothing matches", async () => {
    await put("app.ts", "const a = 1;\nfunction total(items) {\n  return items.length;\n}\n");
    const out = await edit({
      file_path: "app.ts",
      old_string: "function total(list) {\n  return list.length;",
      new_string: "x",
    });
    expect(out.isError).toBe(true);
    expect(out.output).toContain("closest lines are 2-3");
    expect(out.output).toContain("2 | function total(items) {");
  });

  it("offers gemini-cli's allow_multiple flag in the Gemini profile", async () => {
    const gemini = createGeminiProfile("gemini-2.5-pro").toolRegistry.get("edit_file");
    const params = gemini?.definition.parameters as { properties: Record<string, unknown> };
    expect(Object.keys(params.properties)).toEqual([
      "file_path",
      "old_string",
      "new_string",
      "allow_multiple",
    ]);
    await put("m.txt", "x\ny\nx\n");
    const out = (await gemini?.executor(
      { file_path: "m.txt", old_string: "x", new_string: "z", allow_multiple: true },
      env,
      { toolCallId: "t" },
    )) as ToolOutput;
    expect(out.output).toMatch(/2 replacements/);
    expect(await get("m.txt")).toBe("z\ny\nz\n");
  });

  it("reads over-escaped strings back and says so", async () => {
    await put("g.js", 'log("hi");\nnext();\n');
    const out = await edit({
      file_path: "g.js",
      old_string: 'log(\\"hi\\");\\nnext();',
      new_string: "done();",
    });
    expect(out.isError).toBeFalsy();
    expect(await get("g.js")).toBe("done();\n");
    expect(out.output).toContain("were over-escaped");
  });

  it("refuses an omission placeholder and leaves the file as it was", async () => {
    const file = "def a():\n    one()\n    two()\n";
    await put("p.py", file);
    const out = await edit({
      file_path: "p.py",
      old_string: file,
      new_string: "def a():\n    zero()\n    # ... rest of code\n",
    });
    expect(out.isError).toBe(true);
    expect(out.output).toContain('"# ... rest of code"');
    expect(await get("p.py")).toBe(file);
  });

  it("keeps CRLF line endings and a UTF-8 BOM byte for byte", async () => {
    await put("w.txt", Buffer.from("\uFEFFone\r\ntwo\r\nthree\r\n", "utf8"));
    const out = await edit({ file_path: "w.txt", old_string: "two\nthree", new_string: "2\n3" });
    expect(out.isError).toBeFalsy();
    const bytes = await readFile(join(dir, "w.txt"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString("utf8")).toBe("\uFEFFone\r\n2\r\n3\r\n");
  });

  it("creates a missing file (and its directories) from an empty old_string", async () => {
    const out = await edit({ file_path: "new/dir/file.txt", old_string: "", new_string: "hello\n" });
    expect(out.isError).toBeFalsy();
    expect(out.output).toMatch(/^Created new\/dir\/file\.txt/);
    expect(await get("new/dir/file.txt")).toBe("hello\n");
  });

  it("fills an existing empty file from an empty old_string", async () => {
    await put("empty.txt", "");
    const out = await edit({ file_path: "empty.txt", old_string: "", new_string: "content" });
    expect(out.isError).toBeFalsy();
    expect(await get("empty.txt")).toBe("content");
  });

  it("reports a missing file, a directory and a binary file as errors", async () => {
    expect((await edit({ file_path: "nope.txt", old_string: "a", new_string: "b" })).output).toMatch(
      /File not found: nope\.txt/,
    );
    expect((await edit({ file_path: ".", old_string: "a", new_string: "b" })).output).toMatch(
      /is a directory/,
    );
    await put("bin.dat", Buffer.from([1, 0, 2, 0]));
    const out = await edit({ file_path: "bin.dat", old_string: "a", new_string: "b" });
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/binary/);
  });

  it("keeps the file mode and leaves no temporary files", async () => {
    await put("run.sh", "echo hi\n");
    await chmod(join(dir, "run.sh"), 0o755);
    await edit({ file_path: "run.sh", old_string: "hi", new_string: "bye" });
    expect((await stat(join(dir, "run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readdir(dir)).toEqual(["run.sh"]);
  });

  it("fails cleanly on arguments of the wrong type, before it runs", async () => {
    const [out] = await dispatchToolCalls(
      [{ id: "t1", name: "edit_file", arguments: { file_path: 42, old_string: "a", new_string: "b" } }],
      new ToolRegistry([tool]),
      env,
    );
    expect(out?.isError).toBe(true);
    expect(out?.errorCode).toBe("invalid_arguments");
    expect(out?.output).toMatch(/file_path must be string/);
  });

  it("reports a failed edit with its code", async () => {
    await put("a.txt", "one\n");
    const out = await edit({ file_path: "a.txt", old_string: "two", new_string: "three" });
    expect(out).toMatchObject({ isError: true, errorCode: "not_found" });
    expect(await get("a.txt")).toBe("one\n");
  });

  it("targets the edited path", () => {
    expect(tool.targets?.({ file_path: "a/b.ts", old_string: "", new_string: "" })).toEqual(["a/b.ts"]);
  });
});
