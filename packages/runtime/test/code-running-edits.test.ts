import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPermissionPolicy, type PermissionMode } from "../src/permissions/index.js";

// Files that run code later without the user asking: writing one asks in auto-edit whatever tool
// writes it, while the files of daily work (sources, package.json, README, tests) still do not.

let dir: string;
let root: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-code-running-"));
  root = join(dir, "project");
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(join(root, ".vscode"), { recursive: true });
  await writeFile(join(root, ".vscode", "settings.json"), "{}\n");
  await writeFile(join(root, "package.json"), "{}\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const writeCall = (path: string) => ({
  callId: `w${n++}`,
  toolName: "write_file",
  arguments: { file_path: path, content: "x" },
});
const editCall = (path: string) => ({
  callId: `e${n++}`,
  toolName: "edit_file",
  arguments: { file_path: path, old_string: "a", new_string: "b" },
});
const patchCall = (path: string) => ({
  callId: `p${n++}`,
  toolName: "apply_patch",
  arguments: { patch: `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch` },
});

const verdict = async (mode: PermissionMode, call: ReturnType<typeof writeCall>) =>
  createPermissionPolicy({ mode, projectRoot: root }).evaluate(call);

/** Attack rows: a file that a tool, an editor or a hook runs later. */
const ATTACKS: readonly string[] = [
  ".envrc",
  "services/api/.envrc",
  ".vscode/tasks.json",
  ".vscode/launch.json",
  ".vscode/settings.json",
  ".vscode/mcp.json",
  "packages/web/.vscode/tasks.json",
  ".VSCode/Tasks.json",
  "project.code-workspace",
  ".idea/workspace.xml",
  ".idea/runConfigurations/start.xml",
  ".husky/pre-commit",
  ".husky/_/husky.sh",
  ".git/hooks/pre-commit",
  ".git/hooks/post-checkout",
  ".git/config",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".claude/commands/deploy.md",
  ".claude/hooks/stop.sh",
  ".attractor/settings.json",
  ".attractor/settings.local.json",
  ".attractor/commands/x.md",
  ".mcp.json",
  ".cursor/mcp.json",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  "mise.toml",
  ".mise.toml",
  ".tool-versions",
  ".devcontainer/devcontainer.json",
  ".devcontainer/post-create.sh",
  ".devcontainer.json",
  ".gitmodules",
  ".gitattributes",
  "src/.gitattributes",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  "bunfig.toml",
];

/** Daily work: none of these asks in auto-edit. */
const NORMAL: readonly string[] = [
  "src/index.ts",
  "src/app.tsx",
  "package.json",
  "packages/web/package.json",
  "README.md",
  "test/app.test.ts",
  "src/__tests__/util.spec.js",
  "Makefile",
  "tsconfig.json",
  "docs/vscode.md",
  "src/envrc.ts",
  "src/husky/pre-commit.ts",
  "scripts/mise.ts",
  "CHANGELOG.md",
];

describe("files that run code later", () => {
  it.each(ATTACKS)("write_file %s asks in auto-edit and says what runs it", async (path) => {
    const result = await verdict("auto-edit", writeCall(path));
    expect(result.behavior).toBe("ask");
    if (result.behavior === "ask") expect(result.request.reason).toMatch(/code later|secrets or settings/);
  });

  it.each([".envrc", ".vscode/tasks.json", ".husky/pre-commit", ".mcp.json", "mise.toml", ".gitmodules"])(
    "edit_file and apply_patch on %s ask in auto-edit too",
    async (path) => {
      expect((await verdict("auto-edit", editCall(path))).behavior).toBe("ask");
      expect((await verdict("auto-edit", patchCall(path))).behavior).toBe("ask");
    },
  );

  it("an absolute path into the project is judged by the same list", async () => {
    expect((await verdict("auto-edit", writeCall(join(root, ".envrc")))).behavior).toBe("ask");
    expect((await verdict("auto-edit", writeCall(join(root, "src", "ok.ts")))).behavior).toBe("allow");
  });

  it.each(NORMAL)("write_file %s runs without asking in auto-edit", async (path) => {
    expect((await verdict("auto-edit", writeCall(path))).behavior).toBe("allow");
  });

  it("yolo still writes them (it runs everything but critical commands); plan refuses", async () => {
    expect((await verdict("yolo", writeCall(".envrc"))).behavior).toBe("allow");
    expect((await verdict("plan", writeCall(".envrc"))).behavior).toBe("deny");
  });
});
