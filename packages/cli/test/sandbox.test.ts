import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeBubblewrap, type SandboxEscapeAnswer, type SandboxEscapeRequest } from "@attractor/agent";
import { createRuntime, type Runtime, type RuntimeUi } from "@attractor/runtime";
import { loadSettings } from "@attractor/runtime/config";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  startScriptedModel,
} from "../src/testing/index.js";

// The CLI's side of the sandbox: flag and settings, what the model is told when the sandbox
// blocks a command headless, the interactive re-run outside it, the agent's own keys, and the
// start-up notice where bwrap cannot run. The escape suite itself is in packages/agent/test.
const status = await probeBubblewrap();
const reason = status.available ? "" : ` (skipped: ${status.reason})`;
if (!status.available) console.warn(`CLI sandbox tests skipped: ${status.reason}`);

const KEY = "sk-own-key-never-in-commands-91c2";
let root: string;
let project: string;
let outside: string;
let model: ScriptedModel;
const open: Runtime[] = [];

beforeAll(() => requireBuiltCli());

beforeEach(async () => {
  // Not under /tmp, which sandboxed commands see as their own private directory.
  root = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "attractor-sandbox-cli-"));
  project = join(root, "project");
  outside = join(root, "outside");
  await mkdir(project, { recursive: true });
  await mkdir(outside);
  await mkdir(join(root, "user"));
  await mkdir(join(root, "attractor"));
  execFileSync("git", ["init", "-q"], { cwd: project });
  model = await startScriptedModel("anthropic");
});
afterEach(async () => {
  for (const r of open.splice(0)) await r.close().catch(() => {});
  await model.close();
  await rm(root, { recursive: true, force: true });
});

function ui(answers: SandboxEscapeAnswer[] = []): RuntimeUi & { escapes: SandboxEscapeRequest[] } {
  const escapes: SandboxEscapeRequest[] = [];
  return {
    escapes,
    askPermission: async () => "deny",
    askUser: async () => "no idea",
    askSandboxEscape: async (request) => {
      escapes.push(request);
      return answers.shift() ?? "no";
    },
  };
}

async function start(options: Partial<Parameters<typeof createRuntime>[0]> = {}) {
  const runtime = await createRuntime({
    projectDir: project,
    ui: ui(),
    home: join(root, "attractor"),
    env: { PATH: process.env.PATH ?? "", HOME: join(root, "user"), ...model.env() },
    durable: false,
    mode: "yolo",
    ...options,
  });
  open.push(runtime);
  const warnings: string[] = [];
  runtime.subscribe((u) => {
    if (u.source === "runtime" && u.notice.kind === "warning") warnings.push(u.notice.message);
  });
  return { runtime, warnings };
}

const shell = (command: string) => ({ calls: [{ name: "shell", args: { command } }] });
const lastResult = () => model.seen().at(-1)?.toolResults.at(-1) ?? "";

describe.skipIf(!status.available)(`the sandbox in the CLI${reason}`, () => {
  it("yolo runs in the sandbox: a write outside is blocked and the model is told how the user can allow it", async () => {
    model.script([shell(`touch ${outside}/yolo.txt`), { text: "blocked" }]);
    const { runtime } = await start({ headless: true });
    await runtime.submit("write outside");
    expect(existsSync(join(outside, "yolo.txt"))).toBe(false);
    expect(lastResult()).toMatch(/\[sandbox\] This command ran in a sandbox \(workspace-write/);
    expect(lastResult()).toContain("--sandbox danger-full-access");
  });

  it("commands judged read-only (no checkpoint before them) run with the project read-only", async () => {
    // Attack rows of a classifier that misjudges writers as readers: whatever the classifier
    // says, in normal mode each is either refused or cannot write.
    await mkdir(join(project, "src"));
    await writeFile(join(project, "src", "keep.txt"), "needle\n");
    await writeFile(join(project, "in.txt"), "a\na\n");
    const attacks = [
      "uniq in.txt out-uniq.txt",
      "xxd in.txt out-xxd.txt",
      "git diff --output=out-diff.txt",
      "rg --pre rm needle src",
      "sort -o out-sort.txt in.txt",
    ];
    model.script([...attacks.map(shell), { text: "done" }]);
    const { runtime } = await start({ headless: true, mode: "normal" });
    await runtime.submit("look around");
    for (const name of ["out-uniq.txt", "out-xxd.txt", "out-diff.txt", "out-sort.txt"])
      expect(existsSync(join(project, name)), name).toBe(false);
    expect(existsSync(join(project, "src", "keep.txt"))).toBe(true);
    // A plain reader still works in the read-only sandbox.
    model.script([shell("cat in.txt"), { text: "read" }]);
    await runtime.submit("read it");
    expect(lastResult()).toContain("a\na");
  });

  it("a setsid or daemonised child does not outlive its command", async () => {
    const marker = `MARK-cli-${process.pid}`;
    model.script([
      shell(
        `setsid bash -c 'touch up; sleep 300; : ${marker}' >/dev/null 2>&1 & ( setsid bash -c 'sleep 300; : ${marker}' >/dev/null 2>&1 & ); until [ -e up ]; do sleep 0.01; done`,
      ),
      { text: "started" },
    ]);
    const { runtime } = await start({ headless: true });
    await runtime.submit("start a daemon");
    const alive = () =>
      readdirSync("/proc")
        .filter((e) => /^\d+$/.test(e))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
          } catch {
            return false;
          }
        });
    for (let i = 0; i < 50 && alive().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const left = alive();
    for (const pid of left) process.kill(Number(pid), "SIGKILL");
    expect(left).toEqual([]);
  });

  it("--sandbox danger-full-access runs commands without it", async () => {
    model.script([shell(`touch ${outside}/full.txt`), { text: "done" }]);
    const { runtime } = await start({ headless: true, sandbox: "danger-full-access" });
    await runtime.submit("write outside");
    expect(existsSync(join(outside, "full.txt"))).toBe(true);
  });

  it("--sandbox read-only keeps the project read-only too", async () => {
    model.script([shell("echo x > inside.txt"), { text: "done" }]);
    const { runtime } = await start({ headless: true, sandbox: "read-only" });
    await runtime.submit("write inside");
    expect(existsSync(join(project, "inside.txt"))).toBe(false);
    expect(lastResult()).toContain("[sandbox]");
  });

  it("interactive: the user is asked to re-run a blocked command outside, once or always for the command", async () => {
    const command = `touch ${outside}/asked.txt`;
    model.script([shell(command), shell(command), shell(command), { text: "done" }]);
    const answers = ui(["no", "always"]);
    const { runtime } = await start({ ui: answers });
    await runtime.submit("write outside three times");
    const results = model.seen().at(-1)?.toolResults ?? [];
    expect(results[0]).toContain("[sandbox]");
    expect(results[1]).toContain("outside the sandbox");
    expect(results[2]).toContain("outside the sandbox");
    expect(existsSync(join(outside, "asked.txt"))).toBe(true);
    // The third run was not asked: "always" covers the same command for the session.
    expect(answers.escapes.map((e) => [e.command, e.block.kind])).toEqual([
      [command, "write-outside"],
      [command, "write-outside"],
    ]);
  });

  it("the network setting lets commands reach the network; a project file cannot turn it on", async () => {
    const connect = shell(`exec 3<>/dev/tcp/127.0.0.1/${new URL(model.server.url).port} && echo connected`);
    await mkdir(join(project, ".attractor"));
    await writeFile(
      join(project, ".attractor", "settings.json"),
      JSON.stringify({ sandbox: { network: true } }),
    );
    model.script([connect, { text: "done" }]);
    const first = await start({ headless: true });
    await first.runtime.submit("connect");
    expect(lastResult()).not.toContain("connected");
    expect(lastResult()).toContain("[sandbox]");

    await writeFile(join(root, "attractor", "settings.json"), JSON.stringify({ sandbox: { network: true } }));
    model.script([connect, { text: "done" }]);
    const second = await start({ headless: true });
    await second.runtime.submit("connect");
    expect(lastResult()).toContain("connected");
  });

  it("--add-dir directories are writable to commands; a settings file's additionalDirectories are not", async () => {
    const extra = join(root, "extra");
    await mkdir(extra);
    await mkdir(join(project, ".attractor"));
    await writeFile(
      join(project, ".attractor", "settings.json"),
      JSON.stringify({ permissions: { additionalDirectories: [outside] } }),
    );
    model.script([shell(`touch ${extra}/added.txt; touch ${outside}/from-settings.txt`), { text: "done" }]);
    const { runtime } = await start({ headless: true, additionalDirectories: [extra] });
    await runtime.submit("write in both");
    expect(existsSync(join(extra, "added.txt"))).toBe(true);
    expect(existsSync(join(outside, "from-settings.txt"))).toBe(false);
  });

  it("an explicitly chosen sandbox that cannot run refuses commands; the default falls back with one notice", async () => {
    const noBwrap = { PATH: "/nonexistent-bin", HOME: join(root, "user"), ...model.env() };
    model.script([shell(`/bin/touch ${outside}/refused.txt`), { text: "done" }]);
    const strict = await start({ headless: true, sandbox: "workspace-write", env: noBwrap });
    await strict.runtime.submit("write outside");
    expect(existsSync(join(outside, "refused.txt"))).toBe(false);
    expect(lastResult()).toContain("The sandbox cannot run here");
    expect(strict.warnings.filter((w) => w.includes("sandbox"))).toHaveLength(1);

    model.script([shell("/bin/touch fallback.txt"), shell("/bin/touch fallback2.txt"), { text: "done" }]);
    const lenient = await start({ headless: true, env: noBwrap });
    await lenient.runtime.submit("write inside twice");
    expect(existsSync(join(project, "fallback2.txt"))).toBe(true);
    expect(lenient.warnings.filter((w) => w.includes("sandbox cannot run"))).toHaveLength(1);
  });

  it("headless: where bwrap is missing, one start-up warning on stderr and commands still run", async () => {
    model.script([shell("echo ran-without-sandbox"), { text: "done" }]);
    const result = await runCliProcess(["-p", "run something", "--mode", "yolo"], {
      cwd: project,
      env: cleanEnv(root, { ...model.env(), PATH: "/nonexistent-bin" }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/warning: The sandbox cannot run here/g)).toHaveLength(1);
    expect(lastResult()).toContain("ran-without-sandbox");
  });

  it("the agent's own API keys never reach a command, even with env.allow [*], nor through /proc", async () => {
    await writeFile(join(root, "attractor", "settings.json"), JSON.stringify({ env: { allow: ["*"] } }));
    // Run from a script: the permission check refuses a command line naming /proc/*/environ
    // (critical even in yolo), so only a script shows what the sandbox itself hides.
    await writeFile(
      join(project, "print-env.sh"),
      "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/$PPID/environ 2>/dev/null\n",
    );
    model.script([shell("sh print-env.sh"), { text: "done" }]);
    const result = await runCliProcess(["-p", "print the environment", "--mode", "yolo"], {
      cwd: project,
      env: cleanEnv(root, { ...model.env(), OPENAI_API_KEY: KEY, SOME_TOOL_TOKEN: "tool-token-allowed" }),
    });
    expect(result.code, result.stderr).toBe(0);
    const seen = lastResult();
    expect(seen).toContain("tool-token-allowed");
    expect(seen).not.toContain(KEY);
    expect(seen).not.toContain("sk-ant-test");
  });
});

describe("sandbox settings", () => {
  let home: string;
  let dir: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "sandbox-settings-"));
    dir = join(home, "project");
    await mkdir(join(dir, ".attractor"), { recursive: true });
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  const load = async (user: object | undefined, projectSettings: object | undefined) => {
    await rm(join(home, "settings.json"), { force: true });
    await rm(join(dir, ".attractor", "settings.json"), { force: true });
    if (user) await writeFile(join(home, "settings.json"), JSON.stringify(user));
    if (projectSettings)
      await writeFile(join(dir, ".attractor", "settings.json"), JSON.stringify(projectSettings));
    return (await loadSettings({ home, projectDir: dir })).sandbox;
  };

  it("a project's file may tighten the sandbox but never loosen it", async () => {
    expect(await load(undefined, { sandbox: { mode: "danger-full-access", network: true } })).toBeUndefined();
    expect(await load(undefined, { sandbox: { mode: "read-only" } })).toEqual({ mode: "read-only" });
    expect(
      await load({ sandbox: { mode: "read-only" } }, { sandbox: { mode: "danger-full-access" } }),
    ).toEqual({
      mode: "read-only",
    });
    expect(
      await load(
        { sandbox: { mode: "danger-full-access", network: true } },
        { sandbox: { mode: "workspace-write", network: false } },
      ),
    ).toEqual({ mode: "workspace-write", network: false });
    expect(
      await load({ sandbox: { writableDirs: ["cache"] } }, { sandbox: { writableDirs: ["/etc"] } }),
    ).toEqual({
      writableDirs: ["cache"],
    });
  });

  it("rejects an unknown sandbox mode with the file and place", async () => {
    await expect(load({ sandbox: { mode: "off" } }, undefined)).rejects.toThrow(
      /\/sandbox\/mode: must be one of/,
    );
  });
});

describe("--sandbox", () => {
  it("is listed in --help and rejects an unknown mode with exit 2", async () => {
    const help = await runCliProcess(["--help"], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? "" } });
    expect(help.stdout).toContain("--sandbox <mode>");
    const bad = await runCliProcess(["-p", "x", "--sandbox", "off"], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("read-only, workspace-write, danger-full-access");
  });
});
