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
    expect(byPath["user:/colour"]).toBe('unknown setting "colour"');
    expect(byPath["project:/permissions/allow/1"]).toMatch(/string/);
    expect(byPath["project:/baseUrl"]).toMatch(/http/);
    expect(error.message).toContain(`${userFile()}: at /mode:`);
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
