// yolo's critical tier and the project's tracked files: a recursive delete, a wide glob or a move
// out of the project of a directory that holds tracked files asks (once, never "always"); the
// everyday deletions of build outputs and other untracked or ignored folders still run unasked.
// When git cannot say what it tracks, every directory counts as tracked (fail closed).
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPermissionPolicy, loadBashParser, type PermissionPolicy } from "../src/permissions/index.js";

const ASKS: readonly string[] = [
  "rm -rf src",
  "rm -rf src/",
  "rm -r lib/ test/",
  "rm -rf ./src/nested",
  "rm -fr src lib",
  "rm --recursive --force test",
  "find src -delete",
  "find lib -depth -delete",
  "mv src /tmp",
  "mv src/ ../elsewhere",
  "mv -t /tmp src",
  "mv lib test /tmp/",
  "truncate -s 0 src/*",
  "rm -f src/*",
  "tar -cf /tmp/x.tar --remove-files src",
  "zip -rm /tmp/x.zip lib",
  "sudo rm -rf src",
  "timeout 9 rm -rf lib",
  "rm -rf ..data",
  'for f in src/*; do cp /dev/null "$f"; done',
  'for f in src/*.ts; do : > "$f"; done',
  'for f in lib/*; do dd if=/dev/null of="$f"; done',
  'for f in *; do : >| "$f"; done',
];

const RUNS: readonly string[] = [
  "rm -rf dist",
  "rm -rf dist build node_modules .next target coverage",
  "rm -rf build/",
  "rm -rf src/*.o",
  "rm -rf untracked",
  "find dist -delete",
  "find . -name '*.o' -delete",
  "mv src lib2",
  "mv src/nested src/moved",
  "mv dist /tmp/old-dist",
  "rm src/a.ts",
  "cp /dev/null src/a.ts",
  'for f in src/*.o; do : > "$f"; done',
  "cp -r src/* /tmp/backup/",
  "echo hi > out.txt",
];

let dir: string;
let root: string;
let yolo: PermissionPolicy;
const shell = (command: string, id: string) => ({ callId: id, toolName: "shell", arguments: { command } });

beforeAll(async () => {
  await loadBashParser();
  dir = await mkdtemp(join(tmpdir(), "attractor-tracked-dirs-"));
  root = join(dir, "project");
  for (const d of [
    "src/nested",
    "..data",
    "lib",
    "test",
    "dist",
    "build",
    "node_modules/x",
    "untracked",
    ".next",
    "coverage",
  ])
    await mkdir(join(root, d), { recursive: true });
  for (const f of ["src/a.ts", "src/nested/b.ts", "lib/c.js", "test/d.test.ts", "..data/e.json"])
    await writeFile(join(root, f), "export {};\n");
  for (const f of ["dist/a.js", "build/a.o", "untracked/u.txt", ".next/x", "coverage/lcov.info"])
    await writeFile(join(root, f), "1\n");
  await writeFile(join(root, ".gitignore"), "dist/\nbuild/\nnode_modules/\n.next/\ncoverage/\n");
  execFileSync("git", ["init", "-q"], { cwd: root });
  execFileSync("git", ["add", ".gitignore", "src", "lib", "test", "..data"], { cwd: root });
  yolo = createPermissionPolicy({ mode: "yolo", projectRoot: root });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a directory of tracked files, deleted or moved away in bulk, asks in yolo", () => {
  for (const [i, line] of ASKS.entries()) {
    it(JSON.stringify(line), async () => {
      const outcome = await yolo.evaluate(shell(line, `t${i}`));
      expect(outcome.behavior).toBe("ask");
      if (outcome.behavior === "ask") expect(outcome.request.canAllowAlways).toBe(false);
    });
  }
});

describe("build outputs, untracked folders and renames inside the project run unasked", () => {
  for (const [i, line] of RUNS.entries()) {
    it(JSON.stringify(line), async () => {
      expect((await yolo.evaluate(shell(line, `r${i}`))).behavior).toBe("allow");
    });
  }
});

describe("the answer follows the index", () => {
  it("a folder tracked after the first check counts from then on", async () => {
    expect((await yolo.evaluate(shell("rm -rf untracked", "i1"))).behavior).toBe("allow");
    execFileSync("git", ["add", "untracked"], { cwd: root });
    expect((await yolo.evaluate(shell("rm -rf untracked", "i2"))).behavior).toBe("ask");
    execFileSync("git", ["rm", "-q", "--cached", "-r", "untracked"], { cwd: root });
    expect((await yolo.evaluate(shell("rm -rf untracked", "i3"))).behavior).toBe("allow");
  });

  it("fails closed: when git cannot list the tracked files, deleting any folder asks", async () => {
    const broken = join(dir, "broken");
    await mkdir(join(broken, ".git"), { recursive: true });
    await mkdir(join(broken, "dist"));
    await writeFile(join(broken, ".git", "HEAD"), "not a ref\n");
    const policy = createPermissionPolicy({ mode: "yolo", projectRoot: broken });
    expect((await policy.evaluate(shell("rm -rf dist", "b1"))).behavior).toBe("ask");
  });

  it("a project inside a larger repository (a monorepo's package) is judged by that repository", async () => {
    const policy = createPermissionPolicy({ mode: "yolo", projectRoot: join(root, "src") });
    expect((await policy.evaluate(shell("rm -rf nested", "m1"))).behavior).toBe("ask");
  });

  it("outside a git repository there are no tracked files: folders are deleted unasked", async () => {
    const plain = join(dir, "plain");
    await mkdir(join(plain, "src"), { recursive: true });
    await writeFile(join(plain, "src", "a.ts"), "1\n");
    const policy = createPermissionPolicy({ mode: "yolo", projectRoot: plain });
    expect((await policy.evaluate(shell("rm -rf src", "p1"))).behavior).toBe("allow");
  });
});
