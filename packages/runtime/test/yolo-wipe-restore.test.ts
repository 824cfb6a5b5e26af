// Yolo's safety net for wipes: each line below deletes, empties or moves away the project's files.
// The critical ones ask (the test answers "allow once"), the ones whose effect cannot be read
// (inline interpreter code) run unasked; either way a checkpoint is taken first, and /undo (and
// the restore `attractor rewind` uses) bring back every file, tracked, changed and untracked,
// with the project's own git repository intact.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { ProfileToolRegistry } from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckpointManager } from "../src/checkpoints/index.js";
import { createPermissionPolicy, type PermissionRequest } from "../src/permissions/index.js";
import { createToolGuard } from "../src/runtime/index.js";

const WIPES: readonly (readonly [line: string, critical: boolean])[] = [
  ["tar --remove-files -cf /dev/null .", true],
  ["zip -qrm ../x.zip .", true],
  ["find . -type f -exec rm -f {} +", true],
  ["rm -f $(find . -type f)", true],
  ["find . -print0 | xargs -0 rm -f", true],
  ["perl -MFile::Find -e 'find(sub{unlink if -f}, \".\")'", false],
  ["find . -name '*.js' -exec truncate -s 0 {} +", true],
  ["git rm -rqf . && git commit -qm wipe", true],
  ["mv ./* ../moved/", true],
  ["shred -u src/*.ts", true],
  ["git clean -fdx", true],
  ["git checkout -- .", true],
  ["git restore .", true],
  ["git reset --hard", true],
  ["python3 -c 'import shutil; shutil.rmtree(\"src\")'", false],
  ['node -e \'require("fs").rmSync("src", { recursive: true })\'', false],
  ["tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm -rf .git src' README.md", false],
  ["git -c alias.wipe='!rm -rf .git src' wipe", false],
];

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-wipe-restore-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
};

/** Every file under `root` but its .git, with contents: what a restore must give back. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.name === ".git" && d === root) continue;
      if (e.isDirectory()) await walk(p);
      else out[relative(root, p)] = await readFile(p, "utf8");
    }
  };
  await walk(root);
  return out;
}

/** A project with committed, changed-but-uncommitted, and untracked files. */
async function project(name: string): Promise<string> {
  const root = join(dir, name, "project");
  await mkdir(join(root, "src", "lib"), { recursive: true });
  await mkdir(join(dir, name, "moved"), { recursive: true });
  await writeFile(join(root, "README.md"), "# demo\n");
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(join(root, "src", "lib", "b.js"), "module.exports = 2;\n");
  git(root, "init", "-q");
  git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A");
  git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "start");
  await writeFile(join(root, "src", "a.ts"), "export const a = 2; // not committed\n");
  await writeFile(join(root, "notes.txt"), "untracked notes\n");
  await writeFile(join(root, "src", "lib", "new.js"), "// untracked\n");
  // Ignored by git, so left out of the shadow repository: the repository copy keeps them.
  await writeFile(join(root, ".gitignore"), ".env\ndist/\n");
  git(root, "add", ".gitignore");
  git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "ignore");
  await writeFile(join(root, ".env"), "TOKEN=kept\n");
  await mkdir(join(root, "dist"));
  await writeFile(join(root, "dist", "out.js"), "built\n");
  return root;
}

describe("every wipe is undone completely by the checkpoint taken before it", () => {
  WIPES.forEach(([line, critical], i) => {
    for (const how of ["undo", "rewind"] as const) {
      it(`${how}: ${line}`, async () => {
        const root = await project(`p${i}-${how}`);
        const manager = await createCheckpointManager({
          projectRoot: root,
          home: join(dir, `home${i}-${how}`),
        });
        const asked: PermissionRequest[] = [];
        const policy = createPermissionPolicy({
          mode: "yolo",
          projectRoot: root,
          ask: async (request) => {
            asked.push(request);
            return "allow_once";
          },
        });
        const registry = { get: () => undefined } as unknown as ProfileToolRegistry;
        const guard = createToolGuard({
          policy,
          checkpoints: manager,
          registry: () => registry,
          userMessageId: () => "m1",
          onSnapshotError: (error) => {
            throw error;
          },
        });
        const before = await tree(root);
        const head = git(root, "rev-parse", "HEAD");
        const status = git(root, "status", "--porcelain");

        const decision = await guard({ callId: `c${i}`, toolName: "shell", arguments: { command: line } });
        expect(decision).toEqual({ action: "allow" });
        expect(asked.length, critical ? "a critical line asks in yolo" : "yolo runs it unasked").toBe(
          critical ? 1 : 0,
        );
        const checkpoint = (await manager.checkpoints()).at(-1);
        expect(checkpoint).toBeDefined();
        spawnSync("bash", ["-c", line], {
          cwd: root,
          stdio: "ignore",
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: "t",
            GIT_AUTHOR_EMAIL: "t@example.com",
            GIT_COMMITTER_NAME: "t",
            GIT_COMMITTER_EMAIL: "t@example.com",
          },
        });
        expect(await tree(root), "the line wiped something").not.toEqual(before);

        if (how === "undo") await manager.undo();
        else await manager.restore(checkpoint?.id as string);
        expect(await tree(root)).toEqual(before);
        // The project's own repository is whole again: same commit, same changes.
        expect(git(root, "rev-parse", "HEAD")).toBe(head);
        expect(git(root, "status", "--porcelain")).toBe(status);
      });
    }
  });
});

describe("the repository copy is taken only before lines whose effect cannot be read", () => {
  for (const [line, copied] of [
    ["npm test", false],
    ["node --version", false],
    ["node test.js", false],
    ["touch new.txt", false],
    ["python3 -c 'print(1)'", true],
    ["echo 'print(1)' | python3", true],
    ["awk 'BEGIN { system(\"true\") }'", true],
  ] as const) {
    it(`${line}: ${copied ? "copied" : "not copied"}`, async () => {
      const root = await project(`copy-${line.replace(/\W+/g, "-")}`);
      const manager = await createCheckpointManager({ projectRoot: root, home: join(root, "..", "home") });
      const policy = createPermissionPolicy({
        mode: "yolo",
        projectRoot: root,
        ask: async () => "allow_once",
      });
      const registry = { get: () => undefined } as unknown as ProfileToolRegistry;
      const guard = createToolGuard({
        policy,
        checkpoints: manager,
        registry: () => registry,
        userMessageId: () => "m1",
        onSnapshotError: (error) => {
          throw error;
        },
      });
      expect(await guard({ callId: "c", toolName: "shell", arguments: { command: line } })).toEqual({
        action: "allow",
      });
      const copies = await readdir(join(manager.gitDir, "repositories")).catch(() => []);
      expect(copies.length > 0).toBe(copied);
    });
  }
});
