import { spawn, spawnSync } from "node:child_process";
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileNotFoundError, IsADirectoryError } from "./errors.js";
import { SMALL_FILE_BYTES } from "./file-io.js";
import { LocalExecutionEnvironment } from "./local.js";

let dir: string;
let env: LocalExecutionEnvironment;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "local-env-"));
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterEach(async () => {
  await env.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe("LocalExecutionEnvironment files", () => {
  it("reads a small file in one go and a large one streamed, with the same line windows", async () => {
    const line = (i: number) => `line ${i}\r`;
    const count = Math.ceil(SMALL_FILE_BYTES / 8) + 100;
    const large = `${Array.from({ length: count }, (_, i) => line(i + 1)).join("\n")}\n`;
    const small = `${Array.from({ length: 300 }, (_, i) => line(i + 1)).join("\n")}\n`;
    await writeFile(join(dir, "large.txt"), large);
    await writeFile(join(dir, "small.txt"), small);
    expect(large.length).toBeGreaterThan(SMALL_FILE_BYTES);
    for (const name of ["small.txt", "large.txt"]) {
      expect(await env.readFile(name, { offset: 2, limit: 3 })).toBe("line 2\nline 3\nline 4");
      expect(await env.readFile(name, { offset: 300, limit: 1 })).toBe("line 300");
      expect(await env.readFile(name, { offset: 1, limit: 1, maxLineLength: 3 })).toMatch(/^lin/);
    }
    expect(await env.readFile("small.txt", { offset: 299, limit: 5 })).toBe("line 299\nline 300");
    expect(await env.readFile("small.txt")).toBe(small);
    expect(await env.readFile("large.txt")).toBe(large);
    expect(Buffer.from(await env.readFileBytes("small.txt", { maxBytes: 6 })).toString()).toBe("line 1");
    await mkdir(join(dir, "sub"));
    await expect(env.readFile("sub")).rejects.toBeInstanceOf(IsADirectoryError);
    await expect(env.readFileBytes("sub")).rejects.toBeInstanceOf(IsADirectoryError);
    await expect(env.readFile("nope.txt", { offset: 1, limit: 1 })).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it.skipIf(spawnSync("mkfifo", ["--version"]).status !== 0)(
    "reads a FIFO without blocking the event loop while it waits for a writer",
    async () => {
      const fifo = join(dir, "pipe");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      const reading = env.readFile("pipe");
      // The loop still runs while the read waits: a timer fires, then the writer comes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const writer = spawn("sh", ["-c", 'printf "from the pipe\\n" > "$0"', fifo]);
      const exited = new Promise((resolve) => writer.on("exit", resolve));
      expect(await reading).toBe("from the pipe\n");
      expect(await exited).toBe(0);
    },
  );

  it("writes atomically with parents, keeps the mode and leaves no temp file", async () => {
    await env.writeFile("a/b/c.txt", "one\ntwo\nthree\n");
    expect(await readFile(join(dir, "a/b/c.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    await chmod(join(dir, "a/b/c.txt"), 0o751);
    await env.writeFile("a/b/c.txt", "new");
    expect((await stat(join(dir, "a/b/c.txt"))).mode & 0o777).toBe(0o751);
    expect(await readdir(join(dir, "a/b"))).toEqual(["c.txt"]);
  });

  it("writes through a symlink: the link stays a link, its target gets the content", async () => {
    await env.writeFile("real/target.txt", "old");
    await symlink("real/target.txt", join(dir, "link.txt"));
    await symlink(join(dir, "missing.txt"), join(dir, "dangling"));
    await env.writeFile("link.txt", "new");
    expect((await lstat(join(dir, "link.txt"))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dir, "real/target.txt"), "utf8")).toBe("new");
    await env.writeFile("dangling", "created");
    expect((await lstat(join(dir, "dangling"))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dir, "missing.txt"), "utf8")).toBe("created");
    await symlink("loop-b", join(dir, "loop-a"));
    await symlink("loop-a", join(dir, "loop-b"));
    await expect(env.writeFile("loop-a", "x")).rejects.toThrow(/symbolic links/);
  });

  it("reads line windows and whole files", async () => {
    await env.writeFile("f.txt", "l1\nl2\nl3\nl4\n");
    expect(await env.readFile("f.txt")).toBe("l1\nl2\nl3\nl4\n");
    expect(await env.readFile("f.txt", { offset: 2, limit: 2 })).toBe("l2\nl3");
    expect(await env.readFile("f.txt", { offset: 4 })).toBe("l4");
    expect(await env.readFile("f.txt", { offset: 9 })).toBe("");
  });

  it("reports missing files and directories with structured errors", async () => {
    await expect(env.readFile("nope.txt")).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(env.readFile("nope.txt")).rejects.toMatchObject({ path: "nope.txt" });
    await env.writeFile("d/x", "");
    await expect(env.readFile("d")).rejects.toBeInstanceOf(IsADirectoryError);
    await expect(env.deleteFile("nope")).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it("stats, checks existence and deletes", async () => {
    await env.writeFile("x.bin", new Uint8Array([1, 2, 3, 4]));
    expect(await env.fileExists("x.bin")).toBe(true);
    expect(await env.stat("x.bin")).toMatchObject({ isFile: true, size: 4 });
    expect(await env.readFileBytes("x.bin", { maxBytes: 2 })).toEqual(new Uint8Array([1, 2]));
    await env.deleteFile("x.bin");
    expect(await env.fileExists("x.bin")).toBe(false);
    expect(await env.stat("x.bin")).toBeUndefined();
  });
});
