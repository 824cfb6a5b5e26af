import { chmod, mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { dispatchToolCalls } from "../src/tools/dispatch.js";
import { readFileTool } from "../src/tools/read-file.js";
import { READ_MANY_MAX_BYTES, readManyFilesTool } from "../src/tools/read-many-files.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { writeFileTool } from "../src/tools/write-file.js";
import type { ExecutionEnvironment } from "../src/types/environment.js";
import type { RegisteredTool, ToolOutput } from "../src/types/tool.js";

let dir: string;
let env: LocalExecutionEnvironment;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "file-tools-"));
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const call = async (tool: RegisteredTool, args: Record<string, unknown>, on: ExecutionEnvironment = env) =>
  (await tool.executor(args, on, { toolCallId: "t1" })) as ToolOutput;
const put = async (name: string, content: string | Buffer) => {
  await mkdir(join(dir, name, ".."), { recursive: true });
  await writeFile(join(dir, name), content);
};
const numbered = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${from + i}`);

// 1x1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

describe("read_file", () => {
  const read = readFileTool();

  it("numbers lines, padded to the widest number shown", async () => {
    await put("f.txt", `${numbered(12).join("\n")}\n`);
    const out = await call(read, { file_path: "f.txt", offset: 8, limit: 3 });
    expect(out.output.split("\n").slice(0, 3)).toEqual([" 8 | line 8", " 9 | line 9", "10 | line 10"]);
    expect(out.output).toContain("call read_file with offset=11 to continue");
    expect(out.details).toEqual({ path: "f.txt", linesRead: 3 });
  });

  it("reads to the end without a continuation note, and defaults to 2000 lines", async () => {
    await put("short.txt", "a\nb");
    expect((await call(read, { file_path: "short.txt" })).output).toBe("1 | a\n2 | b");
    await put("long.txt", `${numbered(2500).join("\n")}\n`);
    const out = await call(read, { file_path: "long.txt" });
    expect(out.details?.linesRead).toBe(2000);
    expect(out.output).toContain("2000 | line 2000\n");
    expect(out.output).toContain("offset=2001");
  });

  it("shows a trailing empty line and refuses an offset past the end with the line count", async () => {
    await put("gap.txt", "a\n\n");
    expect((await call(read, { file_path: "gap.txt", offset: 2 })).output).toBe("2 | ");
    const out = await call(read, { file_path: "gap.txt", offset: 3 });
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/offset 3 is past the end of gap\.txt \(2 lines\)/);
  });

  it("reads CRLF files without carriage returns and leaves a BOM out of line 1", async () => {
    await put("win.txt", "\uFEFFfirst\r\nsecond\r\n");
    expect((await call(read, { file_path: "win.txt" })).output).toBe("1 | first\n2 | second");
  });

  it("returns long lines of a file up to 10 MB whole (output truncation shortens the model's copy)", async () => {
    await put("wide.txt", `${"x".repeat(5000)}\nshort\n`);
    const out = await call(read, { file_path: "wide.txt" });
    expect(out.output).toBe(`1 | ${"x".repeat(5000)}\n2 | short`);
  });

  it("returns an image for a PNG and refuses binary content", async () => {
    await put("pic.png", PNG);
    const out = await call(read, { file_path: "pic.png" });
    expect(out.isError).toBeFalsy();
    expect(out.image).toEqual({ data: PNG.toString("base64"), mediaType: "image/png" });
    await put("blob.bin", Buffer.from([0x41, 0x00, 0x42, 0x43]));
    const bin = await call(read, { file_path: "blob.bin" });
    expect(bin.isError).toBe(true);
    expect(bin.output).toBe("blob.bin is a binary file (4 bytes); its content cannot be shown as text.");
  });

  it("explains directories, missing files (with similar names) and permissions", async () => {
    await put("src/config.json", "{}");
    const d = await call(read, { file_path: "src" });
    expect(d.isError).toBe(true);
    expect(d.output).toMatch(/src is a directory/);
    const missing = await call(read, { file_path: "src/confg.json" });
    expect(missing.isError).toBe(true);
    expect(missing.output).toBe("File not found: src/confg.json. Did you mean: src/config.json?");
    expect((await call(read, { file_path: "nowhere/x.txt" })).output).toBe("File not found: nowhere/x.txt.");
    if (process.getuid?.() !== 0) {
      await put("secret.txt", "s");
      await chmod(join(dir, "secret.txt"), 0o000);
      const denied = await call(read, { file_path: "secret.txt" });
      expect(denied.isError).toBe(true);
      expect(denied.output).toMatch(/Permission denied/);
    }
  });

  it("reads line 1,000,000 of a 2 GB file without loading it (streamed line reads, flat memory)", async () => {
    // 1,000,100 text lines, then a sparse extension to 2 GB.
    const path = join(dir, "huge.log");
    const handle = await open(path, "w");
    for (let start = 1; start <= 1_000_100; start += 100_000) {
      await handle.write(`${numbered(100_000, start).join("\n")}\n`);
    }
    await handle.truncate(2 * 1024 ** 3);
    await handle.close();
    expect((await stat(path)).size).toBe(2 * 1024 ** 3);
    const calls: string[] = [];
    // The real environment, with its file reads recorded.
    const spied = new Proxy(env, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== "readFile" && prop !== "readFileBytes")
          return typeof value === "function" ? value.bind(target) : value;
        return (p: string, options?: unknown) => {
          calls.push(`${String(prop)} ${JSON.stringify(options ?? null)}`);
          return (value as (p: string, o?: unknown) => Promise<unknown>).call(target, p, options);
        };
      },
    });
    const before = process.memoryUsage.rss();
    const out = await call(read, { file_path: "huge.log", offset: 1_000_000, limit: 3 }, spied);
    const growth = process.memoryUsage.rss() - before;
    expect(out.output.split("\n").slice(0, 3)).toEqual([
      "1000000 | line 1000000",
      "1000001 | line 1000001",
      "1000002 | line 1000002",
    ]);
    expect(out.output).toContain("offset=1000003 to continue");
    expect(calls).toEqual([
      'readFileBytes {"maxBytes":8192}',
      'readFile {"offset":1000000,"limit":4,"maxLineLength":2000}',
    ]);
    expect(growth).toBeLessThan(64 * 1024 * 1024);
  });

  it("cuts a 600 MB single line while reading it, never holding it whole", async () => {
    // Longer than the longest string V8 can build: reading the line whole would fail.
    const path = join(dir, "one-line.txt");
    const handle = await open(path, "w");
    await handle.write(`${"a".repeat(16 * 1024)}`);
    await handle.truncate(600 * 1024 * 1024);
    await handle.close();
    await writeFile(path, "\r\nsecond line\n", { flag: "a" });
    const before = process.memoryUsage.rss();
    const out = await call(read, { file_path: "one-line.txt" });
    const growth = process.memoryUsage.rss() - before;
    expect(out.isError).toBeFalsy();
    const [first, second] = out.output.split("\n");
    expect(first).toBe(`1 | ${"a".repeat(2000)}… [line cut: ${600 * 1024 * 1024 - 2000} more characters]`);
    expect(second).toBe("2 | second line");
    expect(growth).toBeLessThan(64 * 1024 * 1024);
  });

  it("is read-only and rejects a bad offset before it runs", async () => {
    expect(read.readOnly).toBe(true);
    await put("f.txt", "a\n");
    const [out] = await dispatchToolCalls(
      [{ id: "t1", name: "read_file", arguments: { file_path: "f.txt", offset: 0 } }],
      new ToolRegistry([read]),
      env,
    );
    expect(out?.isError).toBe(true);
    expect(out?.errorCode).toBe("invalid_arguments");
    expect(out?.output).toMatch(/Invalid arguments for tool: read_file: offset must be >= 1/);
  });
});

describe("write_file", () => {
  const write = writeFileTool();

  it("creates parent directories and reports bytes written", async () => {
    const out = await call(write, { file_path: "a/b/c.txt", content: "héllo\n" });
    expect(out.isError).toBeFalsy();
    expect(out.output).toBe("Created a/b/c.txt (7 bytes).");
    expect(await readFile(join(dir, "a/b/c.txt"), "utf8")).toBe("héllo\n");
    expect(out.details?.bytesWritten).toBe(7);
    expect(out.details?.diff).toContain("--- /dev/null");
  });

  it("replaces a file atomically, keeping its mode, with a diff and no temp files left", async () => {
    await put("run.sh", "echo one\n");
    await chmod(join(dir, "run.sh"), 0o750);
    const out = await call(write, { file_path: "run.sh", content: "echo two\n" });
    expect(out.output).toBe("Wrote run.sh (9 bytes).");
    expect(out.details?.diff).toContain("-echo one\n+echo two");
    expect((await stat(join(dir, "run.sh"))).mode & 0o777).toBe(0o750);
    expect(await readdir(dir)).toEqual(["run.sh"]);
  });

  it("keeps an existing file's CRLF line endings and BOM, which read_file does not show", async () => {
    await put("a.cs", "\uFEFFclass A\r\n{\r\n}\r\n");
    const out = await call(write, { file_path: "a.cs", content: "class B\n{\n}\n" });
    expect(out.isError).toBeFalsy();
    expect(await readFile(join(dir, "a.cs"), "utf8")).toBe("\uFEFFclass B\r\n{\r\n}\r\n");
    expect(out.details?.diff).toMatch(/^\+\uFEFF?class B\r$/m);
    // An LF file, and content with its own CRLF, are written as given.
    await put("b.txt", "one\ntwo\n");
    await call(write, { file_path: "b.txt", content: "uno\r\ndos\r\n" });
    expect(await readFile(join(dir, "b.txt"), "utf8")).toBe("uno\r\ndos\r\n");
    await put("c.txt", "x\r\ny\r\n");
    await call(write, { file_path: "c.txt", content: "p\r\nq\n" });
    expect(await readFile(join(dir, "c.txt"), "utf8")).toBe("p\r\nq\n");
  });

  it("refuses to write over a directory and targets its path", async () => {
    await mkdir(join(dir, "d"));
    const out = await call(write, { file_path: "d", content: "x" });
    expect(out.isError).toBe(true);
    expect(out.output).toMatch(/d is a directory/);
    expect(write.targets?.({ file_path: "x/y", content: "" })).toEqual(["x/y"]);
  });
});

describe("read_many_files", () => {
  const many = readManyFilesTool();

  it("concatenates files from paths, directories and globs with separators, skipping binaries", async () => {
    await put("a.ts", "export const a = 1;\n");
    await put("src/b.ts", "export const b = 2;\n");
    await put("src/c.md", "# C");
    await put("src/pic.png", PNG);
    await put("src/data.bin", Buffer.from([0, 1, 2]));
    const out = await call(many, { paths: ["a.ts", "src"], exclude: ["**/*.md"] });
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain("--- a.ts ---\nexport const a = 1;\n");
    expect(out.output).toContain("--- src/b.ts ---\nexport const b = 2;\n");
    expect(out.output).not.toContain("# C");
    expect(out.output).toContain("Skipped (binary or image): src/data.bin, src/pic.png");
    const globbed = await call(many, { paths: ["**/*.md", "missing.txt"] });
    expect(globbed.output).toContain("--- src/c.md ---\n# C\n");
    expect(globbed.output).toContain("Not found: missing.txt");
    expect(many.readOnly).toBe(true);
  });

  it("stops at the size cap and lists what was left out", async () => {
    const chunk = "y".repeat(100 * 1024);
    for (const n of [1, 2, 3, 4]) await put(`big${n}.txt`, chunk);
    const out = await call(many, { paths: ["big*.txt"] });
    expect(out.output.length).toBeLessThan(READ_MANY_MAX_BYTES + 2000);
    expect(out.output).toContain("big3.txt was cut at the size limit");
    expect(out.output).toMatch(/Left out at the 256 KB .*: big4\.txt/);
  });

  it("is an error when nothing matched", async () => {
    const out = await call(many, { paths: ["*.nothing"] });
    expect(out.isError).toBe(true);
    expect(out.output).toContain("No text files matched.");
  });
});
