import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  type CheckpointManager,
  createCheckpointManager,
} from "../src/checkpoints/index.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

let dir: string;
let project: string;
let home: string;
let manager: CheckpointManager;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-checkpoints-"));
  project = join(dir, "project");
  home = join(dir, "home");
  await mkdir(join(project, "src"), { recursive: true });
  await writeFile(join(project, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(join(project, "keep.txt"), "keep\n");
  await writeFile(join(project, ".gitignore"), "build/\n*.log\n");
  manager = await createCheckpointManager({ projectRoot: project, home });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = (p: string) => readFile(join(project, p), "utf8");

describe("checkpoints", () => {
  it("undo restores edited, created, deleted and shell-modified files", async () => {
    await manager.snapshot({ label: "before edit", userMessageId: "u1", toolName: "edit_file" });
    await writeFile(join(project, "src", "a.ts"), "export const a = 2;\n");
    await writeFile(join(project, "src", "new.ts"), "new\n");
    await unlink(join(project, "keep.txt"));
    execFileSync(
      "sh",
      ["-c", "mkdir -p gen/deep && echo shell > gen/deep/out.txt && echo more >> src/a.ts"],
      { cwd: project },
    );

    const diff = await manager.diff((await manager.checkpoints())[0]?.id as string);
    expect(Object.fromEntries(diff.files.map((f) => [f.path, f.change]))).toEqual({
      "src/a.ts": "modified",
      "src/new.ts": "deleted",
      "keep.txt": "created",
      "gen/deep/out.txt": "deleted",
    });
    expect(diff.patch).toContain("-export const a = 2;");
    expect(diff.patch).toContain("+export const a = 1;");

    const result = await manager.undo();
    expect(result?.files.length).toBe(4);
    expect(await read("src/a.ts")).toBe("export const a = 1;\n");
    expect(await read("keep.txt")).toBe("keep\n");
    expect(existsSync(join(project, "src", "new.ts"))).toBe(false);
    expect(existsSync(join(project, "gen"))).toBe(false);
  });

  it("repeated undo walks back one change at a time and stops when nothing is left", async () => {
    await manager.snapshot({ label: "1", userMessageId: "u1" });
    await writeFile(join(project, "src", "a.ts"), "v2\n");
    await manager.snapshot({ label: "2", userMessageId: "u1" });
    await writeFile(join(project, "src", "a.ts"), "v3\n");

    await manager.undo();
    expect(await read("src/a.ts")).toBe("v2\n");
    await manager.undo();
    expect(await read("src/a.ts")).toBe("export const a = 1;\n");
    expect(await manager.undo()).toBeUndefined();
    expect(await read("src/a.ts")).toBe("export const a = 1;\n");
  });

  it("takes no new checkpoint when nothing changed", async () => {
    const first = await manager.snapshot({ label: "a", userMessageId: "u1" });
    const second = await manager.snapshot({ label: "b", userMessageId: "u1" });
    expect(second.id).toBe(first.id);
    expect(await manager.checkpoints()).toHaveLength(1);
  });

  it("gives each user message a checkpoint of its own, even when nothing changed in between", async () => {
    const first = await manager.snapshot({ label: "a", userMessageId: "u1" });
    const second = await manager.snapshot({ label: "b", userMessageId: "u2" });
    const again = await manager.snapshot({ label: "c", userMessageId: "u2" });
    expect(second.id).not.toBe(first.id);
    expect(second.tree).toBe(first.tree);
    expect(again.id).toBe(second.id);
    // A new process knows nothing of the last snapshot but what the history says.
    const fresh = await createCheckpointManager({ projectRoot: project, home });
    const third = await fresh.snapshot({ label: "d", userMessageId: "u3" });
    expect(third.id).not.toBe(second.id);
    expect((await fresh.list()).map((g) => g.userMessageId)).toEqual(["u1", "u2", "u3"]);
  });

  it("neither captures nor touches ignored files", async () => {
    await mkdir(join(project, "build"));
    await writeFile(join(project, "build", "out.js"), "old build\n");
    await writeFile(join(project, "debug.log"), "log 1\n");
    await manager.snapshot({ label: "x" });
    await writeFile(join(project, "build", "out.js"), "new build\n");
    await writeFile(join(project, "debug.log"), "log 2\n");
    await writeFile(join(project, "src", "a.ts"), "changed\n");
    const result = await manager.undo();
    expect(result?.files.map((f) => f.path)).toEqual(["src/a.ts"]);
    expect(await read("build/out.js")).toBe("new build\n");
    expect(await read("debug.log")).toBe("log 2\n");
  });

  it("leaves the project's own git repository untouched", async () => {
    git(project, "init", "-q");
    git(project, "add", "-A");
    git(project, "commit", "-q", "-m", "init");
    await writeFile(join(project, "src", "a.ts"), "staged change\n");
    git(project, "add", "src/a.ts");
    const head = git(project, "rev-parse", "HEAD");
    const index = await readFile(join(project, ".git", "index"));
    const status = git(project, "status", "--porcelain");

    await manager.snapshot({ label: "before", userMessageId: "u1" });
    await writeFile(join(project, "src", "b.ts"), "b\n");
    await manager.undo();

    expect(git(project, "rev-parse", "HEAD")).toBe(head);
    expect(await readFile(join(project, ".git", "index"))).toEqual(index);
    expect(git(project, "status", "--porcelain")).toBe(status);
    expect(manager.gitDir.startsWith(home)).toBe(true);
  });

  it("groups checkpoints per user message and restores any of them", async () => {
    await manager.snapshot({ label: "m1 edit", userMessageId: "u1" });
    await writeFile(join(project, "one.txt"), "1\n");
    await manager.snapshot({ label: "m1 edit 2", userMessageId: "u1" });
    await writeFile(join(project, "two.txt"), "2\n");
    await manager.snapshot({ label: "m2 edit", userMessageId: "u2" });
    await writeFile(join(project, "three.txt"), "3\n");

    const groups = await manager.list();
    expect(groups.map((g) => [g.userMessageId, g.checkpoints.map((c) => c.label)])).toEqual([
      ["u1", ["m1 edit", "m1 edit 2"]],
      ["u2", ["m2 edit"]],
    ]);
    // Rewind to before the first message's changes.
    const target = groups[0]?.checkpoints[0]?.id as string;
    const preview = await manager.diff(target);
    expect(preview.files.map((f) => f.path).sort()).toEqual(["one.txt", "three.txt", "two.txt"]);
    await manager.restore(target);
    expect(existsSync(join(project, "one.txt"))).toBe(false);
    expect(existsSync(join(project, "three.txt"))).toBe(false);
    expect(await read("src/a.ts")).toBe("export const a = 1;\n");
  });

  it("keeps every checkpoint when two processes share the project's shadow repository", async () => {
    const other = await createCheckpointManager({ projectRoot: project, home });
    await manager.snapshot({ label: "a1", userMessageId: "a" });
    await writeFile(join(project, "keep.txt"), "one\n");
    await other.snapshot({ label: "b1", userMessageId: "b" });
    await writeFile(join(project, "keep.txt"), "two\n");
    // `manager` still believes a1 is the newest: its compare-and-swap fails and it reads again.
    await manager.snapshot({ label: "a2", userMessageId: "a" });
    expect((await other.checkpoints()).map((c) => c.label)).toEqual(["a1", "b1", "a2"]);
    await writeFile(join(project, "keep.txt"), "three\n");
    expect((await manager.undo())?.restored.label).toBe("a2");
    expect(await read("keep.txt")).toBe("two\n");
  });

  it("takes a checkpoint of its own when another process moved on and the project came back to its last state", async () => {
    const other = await createCheckpointManager({ projectRoot: project, home });
    await writeFile(join(project, "back.txt"), "one\n");
    await manager.snapshot({ label: "a1" });
    await writeFile(join(project, "back.txt"), "two\n");
    await other.snapshot({ label: "b1" });
    // The project is as `manager` last saw it; its newest checkpoint is b1's "two", not a1's.
    await writeFile(join(project, "back.txt"), "one\n");
    const a2 = await manager.snapshot({ label: "a2" });
    expect(a2.label).toBe("a2");
    expect((await other.checkpoints()).map((c) => c.label)).toEqual(["a1", "b1", "a2"]);
    await writeFile(join(project, "back.txt"), "three\n");
    expect((await manager.undo())?.restored.label).toBe("a2");
    expect(await read("back.txt")).toBe("one\n");
  });

  it("loses no checkpoint when two processes snapshot at the same moment", async () => {
    // Separate managers queue separately, like two attractor processes in one project: their
    // snapshots interleave in git, and the ref's compare-and-swap must keep every one reachable.
    const other = await createCheckpointManager({ projectRoot: project, home });
    const taken: Checkpoint[] = [];
    for (let i = 0; i < 6; i++) {
      await writeFile(join(project, "race.txt"), `${i}\n`);
      taken.push(
        ...(await Promise.all([
          manager.snapshot({ label: `a${i}` }),
          other.snapshot({ label: `b${i}` }),
          manager.snapshot({ label: `c${i}` }),
        ])),
      );
    }
    const history = await other.checkpoints();
    const ids = new Set(history.map((c) => c.id));
    for (const c of taken) expect(ids.has(c.id), c.label).toBe(true);
    // One checkpoint per distinct state: the six contents of race.txt.
    expect(new Set(history.map((c) => c.tree)).size).toBe(history.length);
    expect(history).toHaveLength(6);
  });

  it("rejects an unknown checkpoint id with a clear error", async () => {
    await manager.snapshot({ label: "x" });
    await expect(manager.restore("0000000000")).rejects.toThrow(/no checkpoint 0000000000/);
  });
});
