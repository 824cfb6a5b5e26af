import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecResult } from "../../types/environment.js";
import { detectSandboxBlock } from "./blocked.js";
import { bwrapArguments } from "./bwrap-args.js";
import { createSandboxPolicy, type SandboxPolicy } from "./policy.js";
import { seatbeltProfile } from "./seatbelt.js";

let base: string;
let project: string;
let home: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], { cwd });

beforeAll(async () => {
  base = realpathSync(await mkdtemp(join(tmpdir(), "sandbox-policy-")));
  project = join(base, "project");
  home = join(base, "home");
  await mkdir(project);
  await mkdir(join(home, ".ssh"), { recursive: true });
  await writeFile(join(home, ".netrc"), "machine x password y");
  git(project, "init", "-q");
  await writeFile(join(project, "a.txt"), "a");
  git(project, "add", "a.txt");
  git(project, "commit", "-qm", "a");
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe("createSandboxPolicy", () => {
  it("makes the project writable, its git hooks and config read-only, and hides existing credential paths", () => {
    const policy = createSandboxPolicy({ projectDirs: [project], home, env: {} });
    expect(policy.mode).toBe("workspace-write");
    expect(policy.writableRoots).toEqual([project]);
    expect(policy.readOnlyPaths).toEqual([join(project, ".git/config"), join(project, ".git/hooks")]);
    expect(policy.hiddenPaths).toEqual(expect.arrayContaining([join(home, ".netrc"), join(home, ".ssh")]));
    // Paths that do not exist are not mounted over (bwrap would create them on the host).
    expect(policy.hiddenPaths).not.toContain(join(home, ".aws"));
    expect(policy.network).toBe(false);
  });

  it("follows a linked worktree to its git directories, keeping their hooks and config read-only", async () => {
    const worktree = join(base, "worktree");
    git(project, "worktree", "add", "-q", worktree);
    const policy = createSandboxPolicy({ projectDirs: [worktree], home, env: {} });
    const common = join(project, ".git");
    expect(policy.writableRoots).toEqual([worktree, common, join(common, "worktrees/worktree")].sort());
    expect(policy.readOnlyPaths).toEqual(
      expect.arrayContaining([join(common, "hooks"), join(common, "config")]),
    );
  });

  it("keeps the hooks and config of submodules read-only too", async () => {
    const module = join(project, ".git/modules/lib/nested");
    await mkdir(join(module, "hooks"), { recursive: true });
    await writeFile(join(module, "HEAD"), "ref: refs/heads/main\n");
    await writeFile(join(module, "config"), "[core]\n");
    const policy = createSandboxPolicy({ projectDirs: [project], home, env: {} });
    expect(policy.readOnlyPaths).toEqual(
      expect.arrayContaining([join(module, "hooks"), join(module, "config")]),
    );
  });

  it("ignores a .git file or a commondir that git did not write (pointing elsewhere)", async () => {
    const forged = join(base, "forged");
    const target = join(base, "elsewhere");
    await mkdir(forged);
    await mkdir(target);
    await writeFile(join(forged, ".git"), `gitdir: ${target}\n`);
    expect(createSandboxPolicy({ projectDirs: [forged], home, env: {} }).writableRoots).toEqual([forged]);

    const worktree = join(base, "worktree2");
    git(project, "worktree", "add", "-q", worktree);
    const gitDir = join(project, ".git/worktrees/worktree2");
    await writeFile(join(gitDir, "commondir"), `${target}\n`);
    const policy = createSandboxPolicy({ projectDirs: [worktree], home, env: {} });
    expect(policy.writableRoots).not.toContain(target);
    expect(policy.writableRoots).toEqual([gitDir, worktree].sort());
  });

  it("creates a missing hooks folder so that it can be kept read-only", async () => {
    const bare = join(base, "nohooks");
    await mkdir(bare);
    git(bare, "init", "-q");
    await rm(join(bare, ".git/hooks"), { recursive: true, force: true });
    const policy = createSandboxPolicy({ projectDirs: [bare], home, env: {} });
    expect(existsSync(join(bare, ".git/hooks"))).toBe(true);
    expect(policy.readOnlyPaths).toContain(join(bare, ".git/hooks"));
  });

  it("never hides a folder that holds the project, and hides the ssh agent's socket", async () => {
    const socket = join(base, "agent.sock");
    await writeFile(socket, "");
    const policy = createSandboxPolicy({
      projectDirs: [project],
      home,
      hiddenPaths: [base],
      env: { SSH_AUTH_SOCK: socket },
    });
    expect(policy.hiddenPaths).not.toContain(base);
    expect(policy.hiddenPaths).toContain(socket);
  });

  it("read-only and full access write nothing but the private /tmp", () => {
    for (const mode of ["read-only", "danger-full-access"] as const) {
      const policy = createSandboxPolicy({ mode, projectDirs: [project], home, env: {} });
      expect(policy.writableRoots).toEqual([]);
      expect(policy.projectRoots).toEqual([project]);
    }
  });
});

const fixed: SandboxPolicy = {
  mode: "workspace-write",
  projectRoots: ["/srv/p"],
  writableRoots: ["/srv/p"],
  readOnlyPaths: ["/srv/p/.git/config", "/srv/p/.git/hooks"],
  hiddenPaths: ["/home/u/.netrc", '/home/u/we"ird'],
  network: false,
};

describe("bwrapArguments", () => {
  it("isolates, then mounts root read-only, /tmp, the writable roots, their read-only parts, then the hidden paths", () => {
    const args = bwrapArguments(fixed, { cwd: "/srv/p/src", tmpDir: "/tmp/x", disableUserns: true });
    const at = (flag: string, value: string) => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    for (const flag of [
      "--unshare-user",
      "--disable-userns",
      "--unshare-pid",
      "--unshare-net",
      "--die-with-parent",
    ])
      expect(args).toContain(flag);
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args.join(" ")).toContain("--proc /proc");
    expect(at("--ro-bind", "/")).toBeLessThan(at("--bind", "/tmp/x"));
    expect(at("--bind", "/tmp/x")).toBeLessThan(at("--bind", "/srv/p"));
    expect(at("--bind", "/srv/p")).toBeLessThan(at("--ro-bind", "/srv/p/.git/hooks"));
    // A path that does not exist is hidden as a file: an empty /dev/null over it.
    expect(at("--ro-bind", "/srv/p/.git/hooks")).toBeLessThan(args.indexOf("/home/u/.netrc"));
    expect(args.slice(-2)).toEqual(["--chdir", "/srv/p/src"]);
  });

  it("keeps the network with network access and drops --disable-userns for old bwrap", () => {
    const args = bwrapArguments(
      { ...fixed, network: true },
      { cwd: "/", tmpDir: "/t", disableUserns: false },
    );
    expect(args).not.toContain("--unshare-net");
    expect(args).not.toContain("--disable-userns");
  });

  it("read-only binds the projects read-only", () => {
    const args = bwrapArguments(
      { ...fixed, mode: "read-only", writableRoots: [] },
      { cwd: "/", tmpDir: "/t", disableUserns: true },
    );
    expect(args.join(" ")).toContain("--ro-bind /srv/p /srv/p");
    expect(args.join(" ")).not.toContain("--bind /srv/p /srv/p");
  });
});

describe("seatbeltProfile (experimental, macOS)", () => {
  it("renders the same policy as SBPL, denials after the allowances they narrow", () => {
    expect(seatbeltProfile(fixed, { tmpDir: "/private/tmp/s" })).toBe(
      [
        "(version 1)",
        "(deny default)",
        "(allow process-exec)",
        "(allow process-fork)",
        "(allow signal (target same-sandbox))",
        "(allow process-info* (target same-sandbox))",
        "(allow sysctl-read)",
        "(allow ipc-posix-shm)",
        "(allow pseudo-tty)",
        "(allow mach-lookup)",
        "(allow file-read*)",
        "(allow file-write*",
        '  (subpath "/private/tmp/s")',
        '  (subpath "/srv/p")',
        '  (literal "/dev/null")',
        '  (literal "/dev/zero")',
        '  (literal "/dev/dtracehelper")',
        '  (regex #"^/dev/tty")',
        '  (regex #"^/dev/fd/")',
        ")",
        "(deny file-write*",
        '  (subpath "/srv/p/.git/config")',
        '  (subpath "/srv/p/.git/hooks")',
        ")",
        "(deny file-read* file-write*",
        '  (subpath "/home/u/.netrc")',
        '  (subpath "/home/u/we\\"ird")',
        ")",
        "",
      ].join("\n"),
    );
  });

  it("allows the network only when the policy does, and writes only /tmp in read-only", () => {
    expect(seatbeltProfile(fixed, { tmpDir: "/t" })).not.toContain("network");
    expect(seatbeltProfile({ ...fixed, network: true }, { tmpDir: "/t" })).toContain("(allow network*)");
    const readOnly = seatbeltProfile({ ...fixed, mode: "read-only", writableRoots: [] }, { tmpDir: "/t" });
    expect(readOnly).not.toContain('(subpath "/srv/p")');
    expect(readOnly).not.toContain("(deny file-write*\n");
  });
});

describe("detectSandboxBlock", () => {
  const result = (output: string, exitCode: number | null = 1): ExecResult => ({
    stdout: output,
    stderr: "",
    output,
    exitCode,
    timedOut: false,
    aborted: false,
    durationMs: 1,
    droppedBytes: 0,
  });
  it("names writes, network and hidden paths, and nothing for ordinary failures or successes", () => {
    expect(
      detectSandboxBlock(result("touch: cannot touch '/etc/x': Read-only file system"), fixed, "h")?.kind,
    ).toBe("write-outside");
    expect(
      detectSandboxBlock(result("curl: (6) Could not resolve host: example.com"), fixed, "h")?.kind,
    ).toBe("network");
    expect(
      detectSandboxBlock(
        result("curl: (6) Could not resolve host: example.com"),
        { ...fixed, network: true },
        "h",
      ),
    ).toBeUndefined();
    expect(detectSandboxBlock(result("cat: /home/u/.netrc: No such file"), fixed, "h")?.kind).toBe(
      "hidden-path",
    );
    expect(detectSandboxBlock(result("error: gpg failed to sign the data"), fixed, "h")?.kind).toBe(
      "hidden-path",
    );
    expect(
      detectSandboxBlock(result("git@github.com: Permission denied (publickey)."), fixed, "h")?.kind,
    ).toBe("hidden-path");
    expect(detectSandboxBlock(result("error TS2304: Cannot find name"), fixed, "h")).toBeUndefined();
    expect(detectSandboxBlock(result("Read-only file system", 0), fixed, "h")).toBeUndefined();
    expect(detectSandboxBlock(result("x: Read-only file system"), fixed, "Ask the user.")?.message).toMatch(
      /^\[sandbox\] .*workspace-write.*\n.*Ask the user\.$/s,
    );
  });
});
