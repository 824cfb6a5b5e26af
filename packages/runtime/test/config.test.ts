import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { attractorHome, loadSettings, SettingsError } from "../src/config/index.js";

let dir: string;
let home: string;
let project: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "attractor-config-"));
  home = join(dir, "home");
  project = join(dir, "project");
  await mkdir(home, { recursive: true });
  await mkdir(join(project, ".attractor"), { recursive: true });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const userFile = () => join(home, "settings.json");
const projectFile = () => join(project, ".attractor", "settings.json");

const errorOf = async (): Promise<SettingsError> => {
  try {
    await loadSettings({ home, projectDir: project });
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error("expected a SettingsError");
};

describe("settings", () => {
  it("merges user and project files: project scalars win, rule lists concatenate", async () => {
    await writeFile(
      userFile(),
      JSON.stringify({
        model: "a",
        mode: "normal",
        maxTurns: 5,
        permissions: { allow: ["shell(npm test:*)"] },
        env: { allow: ["GH_TOKEN"] },
      }),
    );
    await writeFile(
      projectFile(),
      JSON.stringify({
        model: "b",
        toolMode: "prompted",
        permissions: { allow: ["edit(src/**)"], deny: ["read_file(**/.env)"] },
      }),
    );
    const s = await loadSettings({ home, projectDir: project, trust: () => true });
    expect(s).toMatchObject({ model: "b", mode: "normal", maxTurns: 5, toolMode: "prompted" });
    expect(s.permissions).toEqual({
      allow: ["shell(npm test:*)", "edit(src/**)"],
      ask: [],
      deny: ["read_file(**/.env)"],
    });
    expect(s.env.allow).toEqual(["GH_TOKEN"]);
    expect(s.sources).toEqual([userFile(), projectFile()]);
  });

  it("is empty without files", async () => {
    const s = await loadSettings({ home, projectDir: project });
    expect(s.permissions).toEqual({ allow: [], ask: [], deny: [] });
    expect(s.sources).toEqual([]);
  });

  it("reports malformed JSON with file, line and column", async () => {
    await writeFile(projectFile(), '{\n  "model": "x",\n  "mode": normal\n}\n');
    const error = await errorOf();
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ file: projectFile(), line: 3, column: 11 });
    expect(error.message).toContain(`${projectFile()}:3:11: invalid JSON`);
  });

  it("reports every schema problem with its JSON path, in both files", async () => {
    await writeFile(userFile(), JSON.stringify({ mode: "turbo", maxTurns: -1, colour: "red" }));
    await writeFile(
      projectFile(),
      JSON.stringify({ permissions: { allow: ["shell(npm test:*", 3] }, baseUrl: "ftp://x" }),
    );
    const error = await errorOf();
    const byPath = Object.fromEntries(
      error.issues.map((i) => [`${i.file === userFile() ? "user" : "project"}:${i.jsonPath}`, i.problem]),
    );
    expect(byPath["user:/mode"]).toMatch(/must be one of "plan", "normal", "auto-edit", "yolo"/);
    expect(byPath["user:/maxTurns"]).toMatch(/>= 0/);
    // An unknown key is a warning, never an error.
    expect(byPath["user:/colour"]).toBeUndefined();
    expect(byPath["project:/permissions/allow/1"]).toMatch(/string/);
    expect(byPath["project:/baseUrl"]).toMatch(/http/);
    expect(error.message).toContain(`${userFile()}: at /mode:`);
  });

  it("accepts JSON with comments and trailing commas, and warns about unknown keys instead of failing", async () => {
    await writeFile(
      userFile(),
      `{
  // my defaults
  "model": "a", /* inline */
  "statusLine": { "type": "command" },
  "permissions": { "allow": ["shell(npm test:*)"], "disableBypassPermissionsMode": "disable" },
}
`,
    );
    const s = await loadSettings({ home, projectDir: project });
    expect(s.model).toBe("a");
    expect(s.permissions.allow).toEqual(["shell(npm test:*)"]);
    expect(s.warnings?.map((w) => [w.jsonPath, w.problem])).toEqual([
      ["/statusLine", 'unknown setting "statusLine"'],
      ["/permissions/disableBypassPermissionsMode", 'unknown setting "disableBypassPermissionsMode"'],
    ]);
    expect(s).not.toHaveProperty("statusLine");
  });

  it("collects hooks per file with their scope, .claude/settings.json's hooks only", async () => {
    const group = (command: string) => [{ matcher: "Bash", hooks: [{ type: "command", command }] }];
    await writeFile(userFile(), JSON.stringify({ hooks: { PreToolUse: group("user.sh") } }));
    await writeFile(
      projectFile(),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "p.sh", timeout: 5 }] }] } }),
    );
    await mkdir(join(project, ".claude"), { recursive: true });
    await writeFile(
      join(project, ".claude", "settings.json"),
      // Claude Code's own keys (its rule syntax, env as a map) are not read.
      JSON.stringify({
        permissions: { allow: ["Bash(npm run test:*)"] },
        env: { FOO: "1" },
        hooks: { PostToolUse: group("claude.sh") },
      }),
    );
    await writeFile(
      join(project, ".claude", "settings.local.json"),
      JSON.stringify({ hooks: { Notification: group("notify-send hi") } }),
    );
    const s = await loadSettings({ home, projectDir: project });
    expect(s.hooks?.map((h) => [h.scope, h.file, Object.keys(h.hooks)])).toEqual([
      ["user", userFile(), ["PreToolUse"]],
      ["project", projectFile(), ["Stop"]],
      ["project", join(project, ".claude", "settings.json"), ["PostToolUse"]],
      ["project", join(project, ".claude", "settings.local.json"), ["Notification"]],
    ]);
    expect(s.permissions.allow).toEqual([]);
    expect(s).not.toHaveProperty("hooks.PreToolUse");
  });

  it("reports a malformed hooks entry with its JSON path", async () => {
    await writeFile(
      projectFile(),
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", timeout: -1 }] }] },
      }),
    );
    const error = await errorOf();
    expect(error.issues[0]).toMatchObject({ jsonPath: "/hooks/PreToolUse/0/hooks/0/timeout" });
  });

  it("rejects rule strings it cannot parse", async () => {
    await writeFile(projectFile(), JSON.stringify({ permissions: { deny: ["shell(rm:*"] } }));
    const error = await errorOf();
    expect(error.issues[0]).toMatchObject({ jsonPath: "/permissions/deny/0" });
    expect(error.issues[0]?.problem).toMatch(/closing parenthesis/);
  });

  it("finds its home from ATTRACTOR_HOME", () => {
    expect(attractorHome({ ATTRACTOR_HOME: "/tmp/x" })).toBe("/tmp/x");
    expect(attractorHome({})).toMatch(/\.attractor$/);
  });
});
