// A shell command's checkpoint lets the command start once git has read the project, and commits
// in the background. What the command does from then on must never reach that checkpoint: not
// through the commit written after it started, nor through a retry when another process moved the
// checkpoints meanwhile (a retry commits the tree already read, it does not read the project
// again), and a commit that cannot be written is reported, never replaced by a later state.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProfileToolRegistry } from "@attractor/agent";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  CheckpointGitError,
  type CheckpointManager,
  createCheckpointManager,
} from "../src/checkpoints/index.js";
import { createPermissionPolicy } from "../src/permissions/index.js";
import { createToolGuard } from "../src/runtime/index.js";

const top = await mkdtemp(join(tmpdir(), "attractor-checkpoint-staged-"));
let project: string;
let home: string;
let manager: CheckpointManager;

let case_ = 0;
beforeEach(async () => {
  project = join(top, `project-${case_}`);
  home = join(top, `home-${case_++}`);
  await mkdir(join(project, "src"), { recursive: true });
  await writeFile(join(project, "src", "a.ts"), "a0\n");
  await writeFile(join(project, "src", "b.ts"), "b0\n");
  manager = await createCheckpointManager({ projectRoot: project, home });
});

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

const git = (gitDir: string, ...args: string[]) => {
  const r = spawnSync("git", [`--git-dir=${gitDir}`, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
};
/** The files of a checkpoint's tree, read from the shadow repository itself. */
const filesOf = (checkpoint: Checkpoint): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const path of git(manager.gitDir, "ls-tree", "-r", "--name-only", checkpoint.tree).split("\n")) {
    if (path) out[path] = git(manager.gitDir, "show", `${checkpoint.tree}:${path}`);
  }
  return out;
};
/** The command's effect, made the moment the checkpoint lets it start. */
const command = () => {
  writeFileSync(join(project, "src", "a.ts"), "by the command\n");
  writeFileSync(join(project, "created.txt"), "by the command\n");
};

describe("a snapshot that lets the change start once the project is read", () => {
  it("records the project before the command, not what the command does meanwhile", async () => {
    await manager.snapshot({ label: "start" });
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    const { committed } = await manager.snapshotStaged({ label: "shell" });
    command();
    const checkpoint = await committed;
    expect(checkpoint.label).toBe("shell");
    expect(filesOf(checkpoint)).toEqual({ "src/a.ts": "a0\n", "src/b.ts": "b1\n" });
    expect((await manager.checkpoints()).map((c) => c.label)).toEqual(["start", "shell"]);
    // Undo lands on the state before the command.
    await manager.undo();
    expect(await readFile(join(project, "src", "a.ts"), "utf8")).toBe("a0\n");
  });

  it("after an edit's recorded change, both checkpoints hold the states before their changes", async () => {
    await manager.snapshot({ label: "start" });
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    const edit = await manager.snapshotFiles({ label: "edit" }, ["src/b.ts"]);
    await writeFile(join(project, "src", "b.ts"), "b2\n");
    const { committed } = await manager.snapshotStaged({ label: "shell" });
    command();
    expect(filesOf(await edit.committed)).toEqual({ "src/a.ts": "a0\n", "src/b.ts": "b1\n" });
    expect(filesOf(await committed)).toEqual({ "src/a.ts": "a0\n", "src/b.ts": "b2\n" });
    expect((await manager.checkpoints()).map((c) => c.label)).toEqual(["start", "edit", "shell"]);
  });

  it("returns before the commit is written: a commit held up past the retries is reported, not retaken", async () => {
    const start = await manager.snapshot({ label: "start" });
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    // Another git process holding the checkpoints' ref: the tree can be read, not committed.
    const lock = join(manager.gitDir, "refs", "heads", "checkpoints.lock");
    await writeFile(lock, "");
    const { committed } = await manager.snapshotStaged({ label: "held" });
    expect(git(manager.gitDir, "rev-parse", "refs/heads/checkpoints").trim()).toBe(start.id);
    command();
    const error = await committed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CheckpointGitError);
    expect(String(error)).toMatch(/another process kept moving the checkpoints/);
    await rm(lock);
    // Nothing was committed in its name, least of all the state after the command.
    expect((await manager.checkpoints()).map((c) => c.label)).toEqual(["start"]);
  });

  it("fails before the project is read: the snapshot itself rejects", async () => {
    const broken = await createCheckpointManager({ projectRoot: project, home: join(top, "not-a-dir") });
    await writeFile(join(top, "not-a-dir"), "a file where the home should be\n");
    await expect(broken.snapshotStaged({ label: "shell" })).rejects.toThrow(/ENOTDIR|not a directory/);
  });

  it("keeps a message line that reads like the script's signal", async () => {
    const first = await manager.snapshot({ label: "staged", userMessageId: "m1" });
    const other = await createCheckpointManager({ projectRoot: project, home });
    // Unchanged tree, same message: the newest checkpoint is returned, its message read by the script.
    const { committed } = await other.snapshotStaged({ label: "shell", userMessageId: "m1" });
    expect(await committed).toMatchObject({ id: first.id, label: "staged", userMessageId: "m1" });
  });
});

describe("another process moves the checkpoints between the read and the commit", () => {
  it("the whole-tree snapshot commits the tree it read on top of theirs", async () => {
    await manager.snapshot({ label: "start" });
    const other = await createCheckpointManager({ projectRoot: project, home });
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    const theirs = await other.snapshot({ label: "theirs" });
    await writeFile(join(project, "src", "b.ts"), "b2\n");
    // This process still sees `start` as the newest checkpoint: its first commit is refused.
    const { committed } = await manager.snapshotStaged({ label: "shell" });
    command();
    const checkpoint = await committed;
    expect(filesOf(checkpoint)).toEqual({ "src/a.ts": "a0\n", "src/b.ts": "b2\n" });
    expect(git(manager.gitDir, "rev-parse", `${checkpoint.id}^`).trim()).toBe(theirs.id);
    expect((await other.checkpoints()).map((c) => c.label)).toEqual(["start", "theirs", "shell"]);
  });

  it("the checkpoints of recorded edits and the command's are committed from the trees read", async () => {
    await manager.snapshot({ label: "start" });
    const other = await createCheckpointManager({ projectRoot: project, home });
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    await other.snapshot({ label: "theirs" });
    await writeFile(join(project, "src", "b.ts"), "b2\n");
    const edit = await manager.snapshotFiles({ label: "edit" }, ["src/b.ts"]);
    await writeFile(join(project, "src", "b.ts"), "b3\n");
    const { committed } = await manager.snapshotStaged({ label: "shell" });
    command();
    expect(filesOf(await edit.committed)).toEqual({ "src/a.ts": "a0\n", "src/b.ts": "b2\n" });
    expect(filesOf(await committed)).toEqual({ "src/a.ts": "a0\n", "src/b.ts": "b3\n" });
    expect((await other.checkpoints()).map((c) => c.label)).toEqual(["start", "theirs", "edit", "shell"]);
  });

  it("a checkpoint of its own for a new user message is committed from the tree read", async () => {
    await manager.snapshot({ label: "start", userMessageId: "m1" });
    const other = await createCheckpointManager({ projectRoot: project, home });
    // Unchanged tree, new message: the commit is forced once the newest checkpoint is read.
    const { committed } = await other.snapshotStaged({ label: "shell", userMessageId: "m2" });
    command();
    const checkpoint = await committed;
    expect(checkpoint.label).toBe("shell");
    expect(filesOf(checkpoint)).toEqual({ "src/a.ts": "a0\n", "src/b.ts": "b0\n" });
  });
});

describe("the tool guard", () => {
  it("lets a shell command run once the tree is read and reports a commit that failed after", async () => {
    await manager.snapshot({ label: "start" });
    const errors: unknown[] = [];
    const registry = { get: () => undefined } as unknown as ProfileToolRegistry;
    const guard = createToolGuard({
      policy: createPermissionPolicy({ mode: "yolo", projectRoot: project }),
      checkpoints: manager,
      registry: () => registry,
      userMessageId: () => undefined,
      onSnapshotError: (error) => errors.push(error),
    });
    const lock = join(manager.gitDir, "refs", "heads", "checkpoints.lock");
    await writeFile(lock, "");
    await writeFile(join(project, "src", "b.ts"), "b1\n");
    const decision = await guard({ callId: "c1", toolName: "shell", arguments: { command: "touch x.txt" } });
    expect(decision).toEqual({ action: "allow" });
    await manager.flush();
    await rm(lock);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(CheckpointGitError);
  });
});

describe("a new shadow repository", () => {
  it("is a repository with a work tree that git accepts, made without `git config`", async () => {
    await manager.prepare();
    expect(git(manager.gitDir, "rev-parse", "--is-bare-repository").trim()).toBe("false");
    expect(git(manager.gitDir, "config", "--get", "core.bare").trim()).toBe("false");
    const start = await manager.snapshot({ label: "start" });
    await writeFile(join(project, "src", "a.ts"), "a1\n");
    await manager.restore(start.id);
    expect(await readFile(join(project, "src", "a.ts"), "utf8")).toBe("a0\n");
  });
});
