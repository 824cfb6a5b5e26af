import { chmod, lstat, mkdtemp, readdir, readFile, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileNotFoundError, IsADirectoryError } from "./errors.js";
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
