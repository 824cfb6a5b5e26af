// An edit's checkpoint records only the files the call names before it runs; the rest of the tree
// is snapshotted in the background. Undo and rewind must land on exactly the states the
// whole-tree snapshots gave: edits in quick succession, created files, an undo arriving while the
// background snapshot is being written, shell commands between edits, ignored files, links.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProfileToolRegistry, ToolCallInfo } from "@attractor/agent";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { type CheckpointManager, createCheckpointManager } from "../src/checkpoints/index.js";
import { createPermissionPolicy } from "../src/permissions/index.js";
import { createToolGuard } from "../src/runtime/index.js";

const top = await mkdtemp(join(tmpdir(), "attractor-checkpoint-targets-"));
let project: string;
let manager: CheckpointManager;
let guard: ReturnType<typeof createToolGuard>;
let userMessageId = "u1";
const snapshotErrors: unknown[] = [];

let case_ = 0;
beforeEach(async () => {
  project = join(top, `project-${case_++}`);
  await mkdir(join(project, "src"), { recursive: true });
  await writeFile(join(project, "src", "a.ts"), "a0\n");
  await writeFile(join(project, "src", "b.ts"), "b0\n");
  await writeFile(join(project, ".gitignore"), "build/\n");
  manager = await createCheckpointManager({ projectRoot: project, home: join(top, "home") });
  const policy = createPermissionPolicy({ mode: "yolo", projectRoot: project });
  const registry = { get: () => undefined } as unknown as ProfileToolRegistry;
  guard = createToolGuard({
    policy,
    checkpoints: manager,
    registry: () => registry,
    userMessageId: () => userMessageId,
    onSnapshotError: (error) => snapshotErrors.push(error),
  });
  snapshotErrors.length = 0;
});

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

let n = 0;
/** Passes a call through the guard (taking its checkpoint), makes its change, and reports it made. */
const call = async (toolName: string, args: Record<string, unknown>, change: () => Promise<void> | void) => {
  const info: ToolCallInfo = { callId: `call-${n++}`, toolName, arguments: args, workingDirectory: project };
  expect(await guard(info)).toEqual({ action: "allow" });
  await change();
  manager.changeMade(info.callId);
};
/** Writes a file the way the edit tools do: a temporary file renamed over the target. */
const atomicWrite = async (path: string, text: string) => {
  const full = join(project, path);
  await mkdir(join(full, ".."), { recursive: true });
  const temp = join(full, "..", `.${path.split("/").at(-1)}.${process.pid}.tmp`);
  await writeFile(temp, text);
  await rename(temp, full);
};
const edit = (path: string, text: string) =>
  call("edit_file", { file_path: path, old_string: "x", new_string: "y" }, () => atomicWrite(path, text));
const read = (path: string) => readFile(join(project, path), "utf8");
const state = async () => ({
  a: existsSync(join(project, "src/a.ts")) ? await read("src/a.ts") : undefined,
  b: existsSync(join(project, "src/b.ts")) ? await read("src/b.ts") : undefined,
});

describe("checkpoints of edits record their targets and snapshot the rest in the background", () => {
  it("edits in quick succession are undone one state at a time", async () => {
    await edit("src/a.ts", "a1\n");
    await edit("src/b.ts", "b1\n");
    await edit("src/a.ts", "a2\n");
    await call("write_file", { file_path: "src/b.ts", content: "b2\n" }, () =>
      atomicWrite("src/b.ts", "b2\n"),
    );

    await manager.undo();
    expect(await state()).toEqual({ a: "a2\n", b: "b1\n" });
    await manager.undo();
    expect(await state()).toEqual({ a: "a1\n", b: "b1\n" });
    await manager.undo();
    expect(await state()).toEqual({ a: "a1\n", b: "b0\n" });
    await manager.undo();
    expect(await state()).toEqual({ a: "a0\n", b: "b0\n" });
    expect(await manager.undo()).toBeUndefined();
    expect(snapshotErrors).toEqual([]);
    // No temporary file of the edits got into any checkpoint.
    const listed = spawnSync(
      "git",
      [`--git-dir=${manager.gitDir}`, "log", "--name-only", "--format=", "--all"],
      {
        encoding: "utf8",
      },
    ).stdout;
    expect(listed).not.toContain(".tmp");
  });

  it("a file created and then undone is removed, with the folder made for it", async () => {
    await call("write_file", { file_path: "gen/deep/new.ts", content: "new\n" }, () =>
      atomicWrite("gen/deep/new.ts", "new\n"),
    );
    expect(await read("gen/deep/new.ts")).toBe("new\n");
    const result = await manager.undo();
    expect(result?.files).toEqual([{ path: "gen/deep/new.ts", change: "deleted" }]);
    expect(existsSync(join(project, "gen"))).toBe(false);
    expect(await state()).toEqual({ a: "a0\n", b: "b0\n" });
  });

  it("an undo that arrives before or while the background snapshot is written waits for it", async () => {
    // Before: the snapshot has not started.
    await edit("src/a.ts", "a1\n");
    await manager.undo();
    expect(await read("src/a.ts")).toBe("a0\n");
    // While: the background write is under way when the undo is asked for.
    await edit("src/b.ts", "b1\n");
    const writing = manager.flush();
    const undone = await manager.undo();
    await writing;
    expect(undone?.files.map((f) => f.path)).toEqual(["src/b.ts"]);
    expect(await state()).toEqual({ a: "a0\n", b: "b0\n" });
  });

  it("a change made outside the tools before an edit is kept by undoing the edit", async () => {
    await writeFile(join(project, "notes.md"), "mine\n");
    await edit("src/a.ts", "a1\n");
    await manager.undo();
    expect(await read("notes.md")).toBe("mine\n");
    expect(await read("src/a.ts")).toBe("a0\n");
  });

  it("a shell command between edits gets a whole-tree checkpoint, and each is undone in turn", async () => {
    await edit("src/a.ts", "a1\n");
    const command = "echo shell >> src/a.ts && rm src/b.ts && mkdir -p out && echo o > out/o.txt";
    await call("shell", { command }, () => {
      spawnSync("bash", ["-c", command], { cwd: project });
    });
    await edit("src/a.ts", "a3\n");

    await manager.undo();
    expect(await read("src/a.ts")).toBe("a1\nshell\n");
    await manager.undo();
    expect(await state()).toEqual({ a: "a1\n", b: "b0\n" });
    expect(existsSync(join(project, "out"))).toBe(false);
    await manager.undo();
    expect(await state()).toEqual({ a: "a0\n", b: "b0\n" });
  });

  it("an apply_patch that moves a file is undone: the source comes back and the target goes", async () => {
    const patch =
      "*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/c.ts\n@@\n-a0\n+c\n*** End Patch";
    await call("apply_patch", { patch }, async () => {
      await atomicWrite("src/c.ts", "c\n");
      await rm(join(project, "src/a.ts"));
    });
    await manager.undo();
    expect(await read("src/a.ts")).toBe("a0\n");
    expect(existsSync(join(project, "src/c.ts"))).toBe(false);
  });

  it("groups the background checkpoints by user message for /rewind", async () => {
    userMessageId = "m1";
    await edit("src/a.ts", "a1\n");
    userMessageId = "m2";
    await edit("src/a.ts", "a2\n");
    await edit("src/b.ts", "b1\n");
    userMessageId = "u1";
    const groups = await manager.list();
    expect(groups.map((g) => [g.userMessageId, g.checkpoints.map((c) => c.toolName)])).toEqual([
      ["m1", ["edit_file"]],
      ["m2", ["edit_file", "edit_file"]],
    ]);
    const [m1, m2] = groups;
    await manager.restore(m2?.checkpoints[0]?.id as string);
    expect(await state()).toEqual({ a: "a1\n", b: "b0\n" });
    await manager.restore(m1?.checkpoints[0]?.id as string);
    expect(await state()).toEqual({ a: "a0\n", b: "b0\n" });
  });

  it("neither captures nor touches an ignored file an edit changes", async () => {
    await mkdir(join(project, "build"));
    await writeFile(join(project, "build", "out.js"), "old\n");
    await edit("build/out.js", "new\n");
    await edit("src/a.ts", "a1\n");
    await manager.undo();
    expect(await read("src/a.ts")).toBe("a0\n");
    expect(await read("build/out.js")).toBe("new\n");
    expect(await manager.undo()).toBeUndefined();
  });

  it("an edit through a symbolic link takes a whole-tree checkpoint and is undone", async () => {
    await symlink("src/a.ts", join(project, "link.ts"));
    await call("edit_file", { file_path: "link.ts", old_string: "a0", new_string: "a1" }, () =>
      writeFile(join(project, "src/a.ts"), "a1\n"),
    );
    await manager.undo();
    expect(await read("src/a.ts")).toBe("a0\n");
  });

  it("two processes writing background checkpoints at once lose none of them", async () => {
    const other = await createCheckpointManager({ projectRoot: project, home: join(top, "home") });
    await manager.snapshotFiles({ label: "mine", userMessageId: "p1" }, ["src/a.ts"]);
    await other.snapshotFiles({ label: "theirs", userMessageId: "p2" }, ["src/b.ts"]);
    await writeFile(join(project, "src", "a.ts"), "a1\n");
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    await Promise.all([manager.flush(), other.flush()]);
    const all = await manager.checkpoints();
    const mine = all.find((c) => c.label === "mine");
    const theirs = all.find((c) => c.label === "theirs");
    // Each holds the prior state its own process recorded (the other's edit is a change it did not make).
    await manager.restore(mine?.id as string);
    expect((await state()).a).toBe("a0\n");
    await manager.restore(theirs?.id as string);
    expect((await state()).b).toBe("b0\n");
  });

  it("a background checkpoint made after another process moved on is committed on top of theirs", async () => {
    const other = await createCheckpointManager({ projectRoot: project, home: join(top, "home") });
    await manager.snapshot({ label: "start", userMessageId: "p1" });
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    await other.snapshot({ label: "theirs", userMessageId: "p1" });
    await writeFile(join(project, "src", "b.ts"), "b0\n");
    // The tree with a.ts's prior state laid over is `start`'s, but the newest checkpoint is theirs.
    const { committed } = await manager.snapshotFiles({ label: "mine", userMessageId: "p1" }, ["src/a.ts"]);
    await writeFile(join(project, "src", "a.ts"), "a1\n");
    await manager.flush();
    expect((await committed).label).toBe("mine");
    expect((await other.checkpoints()).map((c) => c.label)).toEqual(["start", "theirs", "mine"]);
    expect((await manager.undo())?.restored.label).toBe("mine");
    expect(await state()).toEqual({ a: "a0\n", b: "b0\n" });
  });

  it("undoes an edit in a 10,000-file project exactly (bench/checkpoint.mjs measures 50,000)", async () => {
    const big = join(top, "big");
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(big, `d${d}`), { recursive: true });
      for (let f = 0; f < 500; f++) writeFileSync(join(big, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
    }
    const bigManager = await createCheckpointManager({ projectRoot: big, home: join(top, "home") });
    await bigManager.snapshot({ label: "first" });
    writeFileSync(join(big, "d9", "f9.txt"), "before the edit\n");
    const { committed } = await bigManager.snapshotFiles({ label: "edit" }, ["d7/f7.txt", "d7/new.txt"]);
    writeFileSync(join(big, "d7", "f7.txt"), "changed\n");
    writeFileSync(join(big, "d7", "new.txt"), "new\n");
    await committed;
    const result = await bigManager.undo();
    expect(result?.files.map((f) => f.path).sort()).toEqual(["d7/f7.txt", "d7/new.txt"]);
    expect(await readFile(join(big, "d7", "f7.txt"), "utf8")).toBe("7/7\n");
    expect(await readFile(join(big, "d9", "f9.txt"), "utf8")).toBe("before the edit\n");
    expect(existsSync(join(big, "d7", "new.txt"))).toBe(false);
    await bigManager.undo();
    expect(await readFile(join(big, "d9", "f9.txt"), "utf8")).toBe("9/9\n");
    expect(await readFile(join(big, "d19", "f499.txt"), "utf8")).toBe("19/499\n");
  }, 120_000);
});
