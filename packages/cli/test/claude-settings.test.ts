import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSettings } from "@attractor/runtime/config";
import { promptHookText, promptHookVerdict } from "@attractor/runtime/hooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModel } from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";

const write = async (file: string, data: unknown) => {
  await mkdir(join(file, ".."), { recursive: true });
  await writeFile(file, typeof data === "string" ? data : JSON.stringify(data));
};

describe("Claude Code's settings files, merged with attractor's", () => {
  let root: string;
  let project: string;
  let home: string;
  let claudeDir: string;
  let managed: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "claude-settings-"));
    project = join(root, "project");
    home = join(root, "attractor");
    claudeDir = join(root, "user", ".claude");
    managed = join(root, "etc", "managed-settings.json");
    await mkdir(project, { recursive: true });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const load = (trusted: boolean) =>
    loadSettings({
      home,
      projectDir: project,
      claudeDir,
      managedSettingsFile: managed,
      trust: () => trusted,
    });

  it("reads every level in Claude Code's precedence order; lists add up, the later scalar wins", async () => {
    await write(join(claudeDir, "settings.json"), {
      model: "user-model",
      env: { LEVEL: "user", USER_ONLY: "1" },
      permissions: { allow: ["Bash(ls:*)"], defaultMode: "acceptEdits" },
    });
    await write(join(project, ".claude", "settings.json"), {
      // comments and trailing commas are accepted, as Claude Code accepts them
      permissions: { allow: ["Bash(npm test:*)"], deny: ["Bash(git reset --hard:*)"], ask: ["Edit(src/**)"] },
      env: { LEVEL: "project" },
    });
    await write(
      join(project, ".claude", "settings.local.json"),
      '{ "model": "local-model", // mine\n "permissions": { "deny": ["Bash(git clean -fd)"], "additionalDirectories": ["../shared"], }, }',
    );
    await write(managed, { permissions: { deny: ["Read(./.env)"] }, env: { LEVEL: "managed" } });
    const s = await load(true);
    expect(s.permissions.allow).toEqual(["Bash(ls:*)", "Bash(npm test:*)"]);
    expect(s.permissions.deny).toEqual(["Bash(git reset --hard:*)", "Bash(git clean -fd)", "Read(./.env)"]);
    expect(s.permissions.ask).toEqual(["Edit(src/**)"]);
    expect(s.model).toBe("local-model");
    expect(s.mode).toBe("auto-edit");
    expect(s.additionalDirectories).toEqual(["../shared"]);
    expect(s.variables).toEqual({ LEVEL: "managed", USER_ONLY: "1" });
    expect(s.unhonoured).toEqual([]);
    expect(s.sources).toEqual([
      join(claudeDir, "settings.json"),
      join(project, ".claude", "settings.json"),
      join(project, ".claude", "settings.local.json"),
      managed,
    ]);
  });

  it("an untrusted project's deny and ask rules apply; its allow rules, env and loose mode wait", async () => {
    await write(join(project, ".claude", "settings.json"), {
      permissions: {
        allow: ["Bash(npm test:*)"],
        deny: ["Bash(git reset --hard:*)"],
        ask: ["Bash(git push:*)"],
        defaultMode: "bypassPermissions",
      },
      env: { SECRET_URL: "http://example.invalid" },
    });
    let asked: readonly string[] = [];
    const s = await loadSettings({
      home,
      projectDir: project,
      claudeDir,
      managedSettingsFile: null,
      trust: (withheld) => {
        asked = withheld;
        return false;
      },
    });
    expect(s.permissions.deny).toEqual(["Bash(git reset --hard:*)"]);
    expect(s.permissions.ask).toEqual(["Bash(git push:*)"]);
    expect(s.permissions.allow).toEqual([]);
    expect(s.mode).toBeUndefined();
    expect(s.variables).toEqual({});
    expect(asked).toEqual(
      expect.arrayContaining([
        "permissions.allow (.claude/settings.json)",
        "permissions.defaultMode (.claude/settings.json)",
        "env (.claude/settings.json)",
      ]),
    );
    expect(s.withheld).toEqual(asked);
  });

  it("names every key read and not honoured, and drops a rule it cannot parse", async () => {
    await write(join(project, ".claude", "settings.json"), {
      statusLine: { type: "command", command: "echo hi" },
      apiKeyHelper: "./key.sh",
      permissions: { deny: ["Bash(rm -rf:*)", "Bash(unclosed"], disableBypassPermissionsMode: "disable" },
    });
    const s = await load(false);
    expect(s.permissions.deny).toEqual(["Bash(rm -rf:*)"]);
    // apiKeyHelper is honoured, and a project's waits for trust.
    expect(s.withheld).toContain("apiKeyHelper (.claude/settings.json)");
    const file = join(project, ".claude", "settings.json");
    expect(s.unhonoured).toEqual([
      `${file}: statusLine`,
      expect.stringMatching(/permissions\.deny "Bash\(unclosed" \(invalid permission rule/),
      `${file}: permissions.disableBypassPermissionsMode`,
    ]);
  });

  it("--setting-sources chooses which of the user, project and local files are read", async () => {
    await write(join(claudeDir, "settings.json"), { permissions: { deny: ["Bash(user:*)"] } });
    await write(join(project, ".claude", "settings.json"), { permissions: { deny: ["Bash(project:*)"] } });
    await write(join(project, ".claude", "settings.local.json"), {
      permissions: { deny: ["Bash(local:*)"] },
    });
    const only = (claudeSources: ("user" | "project" | "local")[]) =>
      loadSettings({ home, projectDir: project, claudeDir, managedSettingsFile: null, claudeSources });
    expect((await only([])).permissions.deny).toEqual([]);
    expect((await only(["project"])).permissions.deny).toEqual(["Bash(project:*)"]);
    expect((await only(["user", "local"])).permissions.deny).toEqual(["Bash(user:*)", "Bash(local:*)"]);
  });

  it("a broken Claude Code file is an error naming the file and position", async () => {
    await write(join(project, ".claude", "settings.json"), '{ "permissions": { "deny": [ }');
    await expect(load(false)).rejects.toThrow(/\.claude\/settings\.json:1:\d+: invalid JSON/);
  });
});

describe("Claude Code settings in a headless run", () => {
  const fx = headlessFixture();

  it("deny rules of .claude/settings.json stop git reset --hard under bypassPermissions, untrusted", async () => {
    execFileSync("git", ["init", "-q"], { cwd: fx.project });
    execFileSync("git", ["add", "-A"], { cwd: fx.project });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], {
      cwd: fx.project,
    });
    await writeFile(join(fx.project, "work.txt"), "uncommitted work\n");
    await writeFile(join(fx.project, "src", "math.js"), "// edited, not committed\n");
    await write(join(fx.project, ".claude", "settings.json"), {
      permissions: { deny: ["Bash(git reset --hard:*)", "Bash(git clean -fd)"] },
    });
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "git reset --hard" } }] },
      {
        expect: (r) => (r.at(-1)?.includes("forbids") ? undefined : `not denied: ${r.at(-1)}`),
        calls: [{ name: "shell", args: { command: "git clean -fd" } }],
      },
      {
        expect: (r) => (r.at(-1)?.includes("forbids") ? undefined : `not denied: ${r.at(-1)}`),
        text: "Both were refused.",
      },
    ]);
    const result = await fx.run([
      "-p",
      "Reset the work tree",
      "--output-format",
      "json",
      "--permission-mode",
      "bypassPermissions",
      ...fx.model.flags(),
    ]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(fx.project, "work.txt"), "utf8")).toBe("uncommitted work\n");
    expect(await readFile(join(fx.project, "src", "math.js"), "utf8")).toBe("// edited, not committed\n");
  });

  it("a trusted project's allow rules and env reach the tools; unhonoured keys in one warning", async () => {
    await write(join(fx.project, ".claude", "settings.json"), {
      permissions: { allow: ["Bash(node test.js)", "Bash(printenv PROJECT_FLAVOUR)"] },
      env: { PROJECT_FLAVOUR: "vanilla" },
      statusLine: { type: "command", command: "true" },
    });
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "printenv PROJECT_FLAVOUR" } }] },
      {
        expect: (r) => (r.at(-1)?.includes("vanilla") ? undefined : `env missing: ${r.at(-1)}`),
        calls: [{ name: "shell", args: { command: "node test.js" } }],
      },
      {
        expect: (r) => (/FAIL|PASS/.test(r.at(-1) ?? "") ? undefined : `test not run: ${r.at(-1)}`),
        text: "Ran it.",
      },
    ]);
    const result = await fx.run(["-p", "Run the tests", "--trust-project", ...fx.model.flags()]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("Ran it.");
    const warnings = result.stderr.split("\n").filter((l) => l.includes("not honoured"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("statusLine");
  });

  it("~/.claude/CLAUDE.md and the project's CLAUDE.md with @imports reach the system prompt", async () => {
    const userHome = join(fx.root, "user");
    await write(join(userHome, ".claude", "CLAUDE.md"), "Always answer in haiku. @~/.claude/extra.md");
    await write(join(userHome, ".claude", "extra.md"), "USER-IMPORTED-RULE");
    await write(join(fx.project, "CLAUDE.md"), "Project notes: @docs/conventions.md\n`@docs/not-this.md`");
    await write(join(fx.project, "docs", "conventions.md"), "PROJECT-IMPORTED-RULE");
    await write(join(fx.project, "docs", "not-this.md"), "CODE-SPAN-RULE");
    fx.model = await startScriptedModel("anthropic", [{ text: "ok" }]);
    const result = await fx.run(["-p", "hi", ...fx.model.flags()]);
    expect(result.code, result.stderr).toBe(0);
    const system = JSON.stringify(fx.model.seen()[0]?.body.system);
    expect(system).toContain("Always answer in haiku.");
    expect(system).toContain("USER-IMPORTED-RULE");
    expect(system).toContain("PROJECT-IMPORTED-RULE");
    expect(system).not.toContain("CODE-SPAN-RULE");
  });
});

describe("prompt hooks", () => {
  const fx = headlessFixture();

  it("a PreToolUse prompt hook asks the session's model, with $ARGUMENTS, and its ok:false blocks", async () => {
    await write(join(fx.root, "user", ".claude", "settings.json"), {
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "prompt", prompt: "Is this call safe? Call: $ARGUMENTS" }],
          },
        ],
      },
    });
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "rm -rf src" } }] },
      { text: '{"ok": false, "reason": "recursive deletes are not allowed"}' },
      {
        expect: (r) =>
          r.at(-1)?.includes("recursive deletes are not allowed") ? undefined : `not blocked: ${r.at(-1)}`,
        text: "Blocked.",
      },
    ]);
    const result = await fx.run(["-p", "Delete src", "--mode", "yolo", ...fx.model.flags()]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    const question = fx.model.seen()[1]?.userTexts[0] ?? "";
    expect(question).toContain("Is this call safe? Call: {");
    expect(question).toContain('"command":"rm -rf src"');
    expect(question).toContain('"hook_event_name":"PreToolUse"');
    expect(existsSync(join(fx.project, "src", "math.js"))).toBe(true);
  });
});

describe("reading a prompt hook's answer", () => {
  it("ok:true and decision:approve go ahead, ok:false and decision:block block, anything else is an error", () => {
    expect(promptHookVerdict('{"ok": true}', "h").kind).toBe("ok");
    expect(promptHookVerdict('Sure. {"decision": "approve"}', "h").kind).toBe("ok");
    expect(promptHookVerdict('{"ok": false, "reason": "no"}', "h")).toEqual({ kind: "block", message: "no" });
    expect(promptHookVerdict('{"decision": "block"}', "h").kind).toBe("block");
    expect(promptHookVerdict("I think it is fine", "h").kind).toBe("error");
  });
  it("puts the input where $ARGUMENTS is, or after the prompt", () => {
    expect(promptHookText("check $ARGUMENTS now", '{"a":1}')).toMatch(/^check \{"a":1\} now/);
    expect(promptHookText("check", '{"a":1}')).toMatch(/^check\n\nHook input:\n\{"a":1\}/);
  });
});
