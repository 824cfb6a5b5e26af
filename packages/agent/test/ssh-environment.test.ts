// SshExecutionEnvironment against a real OpenSSH server on 127.0.0.1: every method gives what the
// local environment gives for the same files; commands never outlive their call; a dropped
// connection fails the running call and the next call reconnects; host keys are verified.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAnthropicProfile,
  type ExecutionEnvironment,
  FileNotFoundError,
  HostKeyError,
  IsADirectoryError,
  LocalExecutionEnvironment,
  RemoteConnectionError,
  resolveSshTarget,
  Session,
  SshExecutionEnvironment,
  type SshExecutionEnvironmentOptions,
} from "../src/index.js";
import { scriptedClient, sshdUnavailable, startSshd, type TestSshd } from "../src/testing/index.js";

const skip = sshdUnavailable();
if (skip) console.warn(`skipping the SSH environment tests: ${skip}`);

let sshd: TestSshd;
let root: string;
let remoteDir: string;
let localDir: string;
let remote: SshExecutionEnvironment;
let local: LocalExecutionEnvironment;

const sshOptions = (extra: Partial<SshExecutionEnvironmentOptions> = {}): SshExecutionEnvironmentOptions => ({
  host: "127.0.0.1",
  port: sshd.port,
  username: sshd.username,
  privateKeyPath: sshd.privateKeyPath,
  knownHostsPath: sshd.knownHostsPath,
  workingDirectory: remoteDir,
  ...extra,
});

/** The same small project in a directory. */
async function project(dir: string): Promise<void> {
  await mkdir(join(dir, "src", "deep"), { recursive: true });
  await mkdir(join(dir, "build"), { recursive: true });
  await writeFile(join(dir, ".gitignore"), "build/\n*.log\n");
  await writeFile(join(dir, "src", "a.ts"), "export const a = 1;\n// TODO: a\nconst Alpha = 2;\n");
  await writeFile(
    join(dir, "src", "deep", "b.ts"),
    "import { a } from '../a';\n// todo b\nexport default a;\n",
  );
  await writeFile(join(dir, "src", "c.js"), "line1\r\nline2 TODO\r\nline3\r\n");
  await writeFile(join(dir, "build", "out.ts"), "// TODO ignored\n");
  await writeFile(join(dir, "debug.log"), "TODO ignored\n");
  await writeFile(join(dir, "big.txt"), Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`).join("\n"));
  await writeFile(join(dir, "long.txt"), `${"x".repeat(5000)}\nshort\n`);
  await writeFile(join(dir, "bin.dat"), Buffer.from([1, 2, 0, 3, 4]));
  await symlink("src/a.ts", join(dir, "link.ts"));
}

beforeAll(async () => {
  if (skip) return;
  sshd = await startSshd();
  root = await mkdtemp(join(tmpdir(), "attractor-ssh-env-"));
  remoteDir = join(root, "remote");
  localDir = join(root, "local");
  await project(remoteDir);
  await project(localDir);
  remote = new SshExecutionEnvironment(sshOptions());
  await remote.initialize();
  local = new LocalExecutionEnvironment({ workingDirectory: localDir });
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await remote?.cleanup();
  await sshd?.stop();
  await rm(root, { recursive: true, force: true });
});

/** Replaces the environment's own directory in results, so local and remote compare. */
const same = (value: unknown, dir: string) => JSON.parse(JSON.stringify(value).split(dir).join("<root>"));

describe.skipIf(skip)("over SSH, every method gives what the local environment gives", () => {
  const both = async <T>(run: (env: ExecutionEnvironment) => Promise<T>) => {
    const [r, l] = await Promise.all([run(remote), run(local)]);
    expect(same(r, remoteDir)).toEqual(same(l, localDir));
    return r;
  };

  it("reads whole files, windows of lines, long lines cut, and bytes", async () => {
    expect(await both((e) => e.readFile("src/a.ts"))).toContain("TODO: a");
    expect(await both((e) => e.readFile("big.txt", { offset: 4000, limit: 3 }))).toBe(
      "row 4000\nrow 4001\nrow 4002",
    );
    expect(await both((e) => e.readFile("src/c.js", { offset: 2, limit: 1 }))).toBe("line2 TODO");
    expect(await both((e) => e.readFile("long.txt", { offset: 1, limit: 2, maxLineLength: 100 }))).toContain(
      "line cut",
    );
    expect([...(await both((e) => e.readFileBytes("bin.dat", { maxBytes: 3 })))]).toEqual([1, 2, 0]);
    expect(await both((e) => e.readFile("link.ts"))).toContain("export const a");
  });

  it("reports missing files and directories as the local environment does", async () => {
    await expect(remote.readFile("nope.txt")).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(remote.readFile("src")).rejects.toBeInstanceOf(IsADirectoryError);
    await expect(remote.deleteFile("src")).rejects.toBeInstanceOf(IsADirectoryError);
    expect(await remote.stat("nope")).toBeUndefined();
    expect(await remote.fileExists("src/a.ts")).toBe(true);
  });

  it("stats files, directories and symlinks", async () => {
    const pick = (s: Awaited<ReturnType<ExecutionEnvironment["stat"]>>) =>
      s && {
        isFile: s.isFile,
        isDirectory: s.isDirectory,
        isSymbolicLink: s.isSymbolicLink,
        size: s.size,
        mode: s.mode,
      };
    for (const path of ["src", "src/a.ts", "link.ts"]) await both(async (e) => pick(await e.stat(path)));
  });

  it("lists directories to a depth, .gitignore honoured, sizes included", async () => {
    const listing = await both((e) => e.listDirectory(".", 3));
    expect(listing.map((d) => d.path)).toEqual([
      "big.txt",
      "bin.dat",
      "long.txt",
      "src",
      "src/a.ts",
      "src/c.js",
      "src/deep",
      "src/deep/b.ts",
    ]);
  });

  it("writes atomically through new directories, keeping an existing file's mode, and deletes", async () => {
    await writeFile(join(remoteDir, "run.sh"), "#!/bin/sh\necho old\n", { mode: 0o755 });
    await remote.writeFile("run.sh", "#!/bin/sh\necho new\n");
    expect(await readFile(join(remoteDir, "run.sh"), "utf8")).toContain("echo new");
    expect((await stat(join(remoteDir, "run.sh"))).mode & 0o777).toBe(0o755);
    await remote.writeFile("made/by/ssh.txt", new Uint8Array([104, 105]));
    expect(await readFile(join(remoteDir, "made", "by", "ssh.txt"), "utf8")).toBe("hi");
    await remote.writeFile("link.ts", "export const a = 3;\n");
    expect(await readFile(join(remoteDir, "src", "a.ts"), "utf8")).toBe("export const a = 3;\n");
    await writeFile(join(remoteDir, "src", "a.ts"), "export const a = 1;\n// TODO: a\nconst Alpha = 2;\n");
    await remote.deleteFile("made/by/ssh.txt");
    expect(await remote.fileExists("made/by/ssh.txt")).toBe(false);
    await rm(join(remoteDir, "made"), { recursive: true });
    await rm(join(remoteDir, "run.sh"));
  });

  it("greps in every mode, with context, a glob filter and case folding, through rg and over SFTP", async () => {
    const sftpOnly = new SshExecutionEnvironment(sshOptions({ grepEngine: "javascript" }));
    try {
      for (const [env, dir] of [
        [remote, remoteDir],
        [sftpOnly, remoteDir],
      ] as const) {
        const cases = [
          ["TODO", ".", {}],
          ["todo", "src", { caseInsensitive: true, contextLines: 1 }],
          ["TODO|todo", ".", { outputMode: "files_with_matches" as const }],
          ["TODO", ".", { outputMode: "count" as const, globFilter: "*.js" }],
          ["a", "src/a.ts", { maxResults: 2 }],
        ] as const;
        for (const [pattern, path, options] of cases) {
          const [r, l] = await Promise.all([
            env.grep(pattern, path, options),
            local.grep(pattern, path, options),
          ]);
          const { engine: _re, ...rr } = r;
          const { engine: _le, ...ll } = l;
          expect(same(rr, dir)).toEqual(same(ll, localDir));
        }
      }
      expect((await remote.grep("TODO", ".")).engine).toBe("ripgrep");
      expect((await sftpOnly.grep("TODO", ".")).engine).toBe("javascript");
    } finally {
      await sftpOnly.cleanup();
    }
  });

  it("globs newest first, .gitignore honoured", async () => {
    const sftpOnly = new SshExecutionEnvironment(sshOptions({ grepEngine: "javascript" }));
    try {
      for (const pattern of ["*.ts", "src/**/*.ts", "**/*.txt", "src/c.js"]) {
        const expected = await local.glob(pattern);
        expect(new Set((await remote.glob(pattern)).paths)).toEqual(new Set(expected.paths));
        expect(new Set((await sftpOnly.glob(pattern)).paths)).toEqual(new Set(expected.paths));
      }
    } finally {
      await sftpOnly.cleanup();
    }
  });

  it("runs commands in the working directory with exit codes, stderr, variables and streamed output", async () => {
    const chunks: string[] = [];
    const r = await remote.execCommand("echo out; echo err >&2; printf '%s' \"$GREETING\"; pwd; exit 3", {
      env: { GREETING: "it's here" },
      onOutput: (c) => chunks.push(c),
    });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe(`out\nit's here${remoteDir}\n`);
    expect(r.stderr).toBe("err\n");
    expect(chunks.join("")).toContain("out");
    const sub = await remote.execCommand("pwd", { workingDir: "src" });
    expect(sub.stdout.trim()).toBe(join(remoteDir, "src"));
    // Non-interactive settings reach remote commands as they reach local ones.
    expect((await remote.execCommand("echo $GIT_PAGER")).stdout.trim()).toBe("cat");
  });

  it("streams a command's output while it runs, each stream whole and in order", async () => {
    const chunks: { text: string; stream: string; at: number }[] = [];
    // "é" is split across the pause: its two bytes arrive in different chunks.
    const pending = remote.execCommand(
      "printf 'first\\n'; echo warn >&2; printf '\\303'; sleep 1; printf '\\251 second\\n'",
      { onOutput: (text, stream) => chunks.push({ text, stream, at: Date.now() }) },
    );
    const r = await pending;
    const ended = Date.now();
    expect(r.stdout).toBe("first\n\u00e9 second\n");
    expect(r.stderr).toBe("warn\n");
    const joined = (stream: string) =>
      chunks
        .filter((c) => c.stream === stream)
        .map((c) => c.text)
        .join("");
    expect(joined("stdout")).toBe(r.stdout);
    expect(joined("stderr")).toBe(r.stderr);
    // What was written before the one-second pause was heard well before the command ended.
    expect(ended - (chunks.find((c) => c.text.startsWith("first"))?.at ?? ended)).toBeGreaterThan(500);
    expect(ended - (chunks.find((c) => c.stream === "stderr")?.at ?? ended)).toBeGreaterThan(500);
  });
});

describe.skipIf(skip)("remote commands never outlive their call", () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const waitGone = async (pid: number) => {
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    return !alive(pid);
  };
  const pidFile = () => join(remoteDir, `pid-${Math.random().toString(36).slice(2)}`);

  it("a timeout kills the command and what it started in the background", async () => {
    const file = pidFile();
    const r = await remote.execCommand(`sleep 60 & echo $! > ${file}; sleep 60`, { timeoutMs: 3_000 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(await waitGone(Number(await readFile(file, "utf8")))).toBe(true);
    await rm(file);
  });

  it("an abort kills the command; a command's leftover background job dies when it exits", async () => {
    const file = pidFile();
    const controller = new AbortController();
    const running = remote.execCommand(`echo $$ > ${file}; sleep 60`, {
      signal: controller.signal,
      timeoutMs: 30_000,
    });
    while (!(await remote.fileExists(file))) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const r = await running;
    expect(r.aborted).toBe(true);
    expect(await waitGone(Number(await readFile(file, "utf8")))).toBe(true);
    const leftover = pidFile();
    const quick = await remote.execCommand(`(sleep 60 & echo $! > ${leftover}); echo done`);
    expect(quick.stdout).toBe("done\n");
    expect(await waitGone(Number(await readFile(leftover, "utf8")))).toBe(true);
    await rm(file);
    await rm(leftover);
  });

  it("a dropped connection fails the running call clearly, stops the command, and the next call reconnects", async () => {
    const file = pidFile();
    const env = new SshExecutionEnvironment(sshOptions());
    try {
      await env.initialize();
      const running = env.execCommand(`echo $$ > ${file}; sleep 60`, { timeoutMs: 30_000 });
      while (!(await env.fileExists(file))) await new Promise((r) => setTimeout(r, 20));
      sshd.dropConnections();
      await expect(running).rejects.toBeInstanceOf(RemoteConnectionError);
      expect(await waitGone(Number(await readFile(file, "utf8")))).toBe(true);
      const again = await env.execCommand("echo back");
      expect(again.stdout).toBe("back\n");
      expect(await env.readFile("src/a.ts")).toContain("export const a");
    } finally {
      await env.cleanup();
      await rm(file, { force: true });
    }
  });
});

describe.skipIf(skip)("host keys and targets", () => {
  it("refuses a host whose key differs from known_hosts, and one missing from it", async () => {
    const wrong = new SshExecutionEnvironment(sshOptions({ knownHostsPath: sshd.wrongKnownHostsPath }));
    const error = await wrong.initialize().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostKeyError);
    expect(error).toMatchObject({ reason: "mismatch" });
    expect((error as Error).message).toContain("does not match");
    const empty = join(root, "empty_known_hosts");
    await writeFile(empty, "");
    const unknown = new SshExecutionEnvironment(sshOptions({ knownHostsPath: empty }));
    expect(await unknown.initialize().catch((e: unknown) => e)).toMatchObject({
      name: "HostKeyError",
      reason: "unknown",
    });
    // Hashed known_hosts entries (ssh-keygen -H) are understood.
    const hashed = join(root, "hashed_known_hosts");
    await writeFile(hashed, await readFile(sshd.knownHostsPath));
    execFileSync("ssh-keygen", ["-q", "-H", "-f", hashed]);
    expect(await readFile(hashed, "utf8")).toMatch(/^\|1\|/);
    const viaHashed = new SshExecutionEnvironment(sshOptions({ knownHostsPath: hashed }));
    await viaHashed.initialize();
    await viaHashed.cleanup();
  });

  it("resolves an ssh config alias and connects through it", async () => {
    const home = join(root, "home");
    await mkdir(join(home, ".ssh"), { recursive: true });
    await writeFile(
      join(home, ".ssh", "config"),
      [
        "Host devbox",
        "  HostName 127.0.0.1",
        `  Port ${sshd.port}`,
        `  User ${sshd.username}`,
        `  IdentityFile ${sshd.privateKeyPath}`,
        `  UserKnownHostsFile ${sshd.knownHostsPath}`,
      ].join("\n"),
    );
    const target = await resolveSshTarget(`devbox:${remoteDir}`, { home });
    expect(target).toMatchObject({
      host: "127.0.0.1",
      port: sshd.port,
      username: sshd.username,
      workingDirectory: remoteDir,
    });
    const env = new SshExecutionEnvironment({ ...target, workingDirectory: "~" });
    try {
      await env.initialize();
      expect(env.workingDirectory()).toBe((await env.execCommand("cd ~ && pwd")).stdout.trim());
    } finally {
      await env.cleanup();
    }
    await expect(resolveSshTarget("devbox:relative/path", { home })).rejects.toThrow("must be absolute");
  });
});

describe.skipIf(skip)("a Session whose tools run over SSH", () => {
  it("gives the model the same tool results as locally and changes the remote files", async () => {
    const script = [
      {
        toolCalls: [
          { name: "read_file", args: { file_path: "src/a.ts" } },
          { name: "grep", args: { pattern: "TODO", path: "." } },
          // One match: SFTP gives mtimes in whole seconds, so ties may order differently than locally.
          { name: "glob", args: { pattern: "src/deep/*.ts" } },
        ],
      },
      {
        toolCalls: [
          {
            name: "edit_file",
            args: { file_path: "src/a.ts", old_string: "const a = 1", new_string: "const a = 42" },
          },
        ],
      },
      { toolCalls: [{ name: "shell", args: { command: "cat src/a.ts | head -1; ls src" } }] },
      { text: "done" },
    ];
    const run = async (environment: ExecutionEnvironment, dir: string) => {
      const client = scriptedClient(script);
      const session = new Session({
        profile: createAnthropicProfile("claude-sonnet-4-5"),
        environment,
        client,
      });
      const outputs: string[] = [];
      session.subscribe((e) => {
        // Durations differ, of course.
        if (e.kind === "tool_call_end")
          outputs.push(`${e.data.toolName}: ${e.data.output.replace(/Duration: \d+ ms/, "Duration: N ms")}`);
      });
      await session.submit("go");
      await session.close();
      return same(outputs.sort(), dir);
    };
    const before = await readFile(join(remoteDir, "src", "a.ts"), "utf8");
    try {
      const [overSsh, locally] = [await run(remote, remoteDir), await run(local, localDir)];
      expect(overSsh).toEqual(locally);
      expect(overSsh.join("\n")).toContain("export const a = 42;");
      expect(await readFile(join(remoteDir, "src", "a.ts"), "utf8")).toContain("const a = 42");
    } finally {
      await writeFile(join(remoteDir, "src", "a.ts"), before);
      await writeFile(join(localDir, "src", "a.ts"), before);
    }
  });

  it("streams a remote command's output to the session's output-delta events while it runs", async () => {
    const session = new Session({
      profile: createAnthropicProfile("claude-sonnet-4-5"),
      environment: remote,
      client: scriptedClient([
        { toolCalls: [{ name: "shell", args: { command: "echo first; sleep 1; echo second" } }] },
        { text: "done" },
      ]),
    });
    const deltas: { text: string; at: number }[] = [];
    let endedAt = 0;
    session.subscribe((e) => {
      if (e.kind === "tool_call_output_delta") deltas.push({ text: e.data.delta, at: Date.now() });
      if (e.kind === "tool_call_end") endedAt = Date.now();
    });
    await session.submit("go");
    await session.close();
    expect(deltas.map((d) => d.text).join("")).toBe("first\nsecond\n");
    // The first line was shown while the command still had a second to run.
    expect(endedAt - (deltas[0]?.at ?? endedAt)).toBeGreaterThan(500);
  });
});
