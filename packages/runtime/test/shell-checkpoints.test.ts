// Checkpoints before shell commands follow the bash classification: a line that can change files
// (the attacks that used to pass as read-only included) is snapshotted before it runs, so /undo
// restores what it did; a read-only line takes no snapshot.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProfileToolRegistry } from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckpointManager, createCheckpointManager } from "../src/checkpoints/index.js";
import { createPermissionPolicy } from "../src/permissions/index.js";
import { createToolGuard } from "../src/runtime/index.js";

let dir: string;
let project: string;
let manager: CheckpointManager;
let guard: ReturnType<typeof createToolGuard>;
const ORIGINAL = "export const a = 1;\n";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-shell-checkpoints-"));
  project = join(dir, "project");
  await mkdir(join(project, "src"), { recursive: true });
  await writeFile(join(project, "src", "a.ts"), ORIGINAL);
  manager = await createCheckpointManager({ projectRoot: project, home: join(dir, "home") });
  // Yolo: everything short of critical runs, so only the checkpoint stands between a mistake and loss.
  const policy = createPermissionPolicy({ mode: "yolo", projectRoot: project });
  const registry = { get: () => undefined } as unknown as ProfileToolRegistry;
  guard = createToolGuard({
    policy,
    checkpoints: manager,
    registry: () => registry,
    userMessageId: () => undefined,
    onSnapshotError: (error) => {
      throw error;
    },
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const run = async (command: string) => {
  const decision = await guard({ callId: `c${n++}`, toolName: "shell", arguments: { command } });
  expect(decision).toEqual({ action: "allow" });
  // The exit status does not matter (rg exits 1 when its --pre program printed nothing).
  spawnSync("bash", ["-c", command], { cwd: project, stdio: "ignore" });
};

const CHANGING: readonly (readonly [command: string, effect: string])[] = [
  ["uniq src/a.ts out.txt", "out.txt"],
  ["xxd src/a.ts out.hex", "out.hex"],
  ["sed -i s/1/2/ src/a.ts", "src/a.ts"],
  ["rg --pre rm const src", "src/a.ts"],
  ["cat <<EOF\n$(touch heredoc.txt)\nEOF", "heredoc.txt"],
  ["echo a$'\\'' ; touch quoted.txt", "quoted.txt"],
  ["for i in 1; do echo x > loop.txt; done", "loop.txt"],
  ["awk 'BEGIN { system(\"touch awk.txt\") }'", "awk.txt"],
  ["sort -o sorted.txt src/a.ts", "sorted.txt"],
  ["echo x | tee tee.txt", "tee.txt"],
  ["find src -name a.ts -delete", "src/a.ts"],
];

describe("a checkpoint precedes every shell line that can change files", () => {
  CHANGING.forEach(([command, effect], i) => {
    it(`${JSON.stringify(command)} is undone by /undo`, async () => {
      // A change no snapshot has seen: undo must land exactly on the state before the command.
      await writeFile(join(project, "marker.txt"), `${i}\n`);
      await run(command);
      const changed =
        effect === "src/a.ts"
          ? !existsSync(join(project, effect)) || (await readFile(join(project, effect), "utf8")) !== ORIGINAL
          : existsSync(join(project, effect));
      expect(changed, "the command did what it does").toBe(true);
      await manager.undo();
      expect(await readFile(join(project, "marker.txt"), "utf8")).toBe(`${i}\n`);
      if (effect === "src/a.ts") expect(await readFile(join(project, effect), "utf8")).toBe(ORIGINAL);
      else expect(existsSync(join(project, effect))).toBe(false);
    });
  });
});

describe("read-only lines take no checkpoint", () => {
  for (const command of [
    "ls src",
    "cat src/a.ts | wc -l",
    "rg const src",
    "for f in src/*.ts; do head -1 $f; done",
  ]) {
    it(JSON.stringify(command), async () => {
      const before = (await manager.checkpoints()).length;
      await writeFile(join(project, "marker.txt"), `${command}\n`);
      await run(command);
      expect(await manager.checkpoints()).toHaveLength(before);
    });
  }
});
