import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, open, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyPatchTool,
  confinedEnvironment,
  type EnvironmentLogEntry,
  editFileTool,
  grepTool,
  LocalExecutionEnvironment,
  listDirTool,
  loggingEnvironment,
  PathOutsideRootError,
  ReadOnlyError,
  readFileTool,
  readOnlyEnvironment,
  type ToolOutput,
  writeFileTool,
} from "../src/index.js";
import { filterEnv } from "../src/internals.js";

let dir: string;
let outside: string;
/** Stands for the absolute path of the outside directory in test tables built before it exists. */
const outsideMarker = "<outside>";
let env: LocalExecutionEnvironment;

/** Whether a process is running; a zombie (killed, not yet reaped by init) counts as gone. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

/** Waits (bounded) for a process to go: signals are delivered asynchronously. */
async function alive(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && running(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return running(pid);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "env-test-"));
  outside = await mkdtemp(join(tmpdir(), "env-outside-"));
  env = new LocalExecutionEnvironment({ workingDirectory: dir });
});
afterAll(async () => {
  await env.cleanup();
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe("execCommand", () => {
  it("captures stdout and stderr separately and combined in order, with exit code and duration", async () => {
    const r = await env.execCommand("echo out1; sleep 0.05; echo err1 >&2; sleep 0.05; echo out2; exit 3");
    expect(r.stdout).toBe("out1\nout2\n");
    expect(r.stderr).toBe("err1\n");
    expect(r.output).toBe("out1\nerr1\nout2\n");
    expect(r.exitCode).toBe(3);
    expect(r.timedOut).toBe(false);
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("runs in the working directory with stdin closed and a non-interactive environment", async () => {
    const r = await env.execCommand(
      'pwd; read -r line; echo "read=$?"; echo "$GIT_TERMINAL_PROMPT $PAGER $CI"',
    );
    expect(r.stdout).toBe(`${dir}\nread=1\n0 cat 1\n`);
  });

  it("makes prompting programs fail at once: no terminal, git prompts off", async () => {
    const r = await env.execCommand(
      'read -r x < /dev/tty; echo "tty=$?"; printf "protocol=https\\nhost=example.invalid\\n\\n" | git credential fill; echo "git=$?"',
      { timeoutMs: 20_000 },
    );
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toBe("tty=1\ngit=128\n");
    expect(r.stderr).toContain("terminal prompts disabled");
  });

  it("streams chunks to onOutput", async () => {
    const chunks: string[] = [];
    await env.execCommand("echo a; echo b >&2", { onOutput: (c) => chunks.push(c) });
    expect(chunks.join("")).toContain("a\n");
    expect(chunks.join("")).toContain("b\n");
  });

  it("times out, keeps partial output and leaves no grandchild behind", async () => {
    const r = await env.execCommand("sleep 300 & echo $!; echo started; sleep 300", { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.output).toContain("started");
    const pid = Number(r.stdout.split("\n")[0]);
    expect(pid).toBeGreaterThan(0);
    expect(await alive(pid)).toBe(false);
  });

  it("on timeout gives the group its grace period (SIGTERM), then SIGKILLs what survives", async () => {
    // bash dies on SIGTERM at once; the subshell traps it, cleans up, and keeps looping.
    const r = await env.execCommand(
      "(trap 'echo child-got-term; sleep 0.3; echo child-cleaned-up' TERM; echo $BASHPID; while :; do sleep 0.1; done) & wait",
      { timeoutMs: 300 },
    );
    expect(r.timedOut).toBe(true);
    expect(r.output).toContain("child-got-term\n");
    // Printed during the grace period, after bash itself was gone: the group was not killed early.
    expect(r.output).toContain("child-cleaned-up\n");
    expect(await alive(Number(r.stdout.split("\n")[0]))).toBe(false);
  });

  it("kills background jobs when the command itself exits", async () => {
    const r = await env.execCommand("sleep 300 & echo $!");
    expect(r.exitCode).toBe(0);
    expect(await alive(Number(r.stdout.trim()))).toBe(false);
  });

  it("an abort signal kills the process group", async () => {
    const ac = new AbortController();
    const p = env.execCommand("sleep 300 & echo $!; sleep 300", {
      signal: ac.signal,
      onOutput: () => ac.abort(),
    });
    const r = await p;
    expect(r.aborted).toBe(true);
    expect(await alive(Number(r.stdout.trim()))).toBe(false);
  });

  it("cleanup() kills every running command", async () => {
    const p = env.execCommand("sleep 300", { timeoutMs: 600_000 });
    await new Promise((r) => setTimeout(r, 100));
    await env.cleanup();
    const r = await p;
    expect(r.aborted).toBe(true);
    expect(r.exitCode).toBeNull();
  });

  it("clamps the timeout to the maximum", async () => {
    const small = new LocalExecutionEnvironment({ workingDirectory: dir, maxTimeoutMs: 200 });
    const r = await small.execCommand("sleep 5", { timeoutMs: 60_000 });
    expect(r.timedOut).toBe(true);
  });

  it("keeps memory flat for a command printing 1 GB: head and tail kept, the middle counted", async () => {
    // Default capture limit (1 MiB kept at each end of each stream), output streamed to a listener.
    let streamed = 0;
    globalThis.gc?.();
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 20);
    const r = await env.execCommand("echo START; head -c 1000000000 /dev/zero | tr '\\0' x; echo; echo END", {
      timeoutMs: 120_000,
      onOutput: (chunk) => {
        streamed += chunk.length;
      },
    });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    expect(r.exitCode).toBe(0);
    expect(streamed).toBe(1_000_000_000 + "START\n\nEND\n".length);
    expect(r.droppedBytes).toBeGreaterThan(997_000_000);
    expect(r.stdout.length).toBeLessThan(2 * 1024 * 1024 + 100);
    expect(r.stdout.startsWith("START\nxxx")).toBe(true);
    expect(r.stdout.endsWith("xxx\nEND\n")).toBe(true);
    expect(r.output).toMatch(/\n\[\.\.\. \d+ bytes of output omitted \.\.\.\]\n/);
    // Holding the output would take over 1 GB; a bounded capture stays within a few buffers.
    expect(peak - before).toBeLessThan(150 * 1024 * 1024);
  }, 120_000);

  it("filters secrets from the environment by default and passes allowed ones", async () => {
    const base = { PATH: process.env.PATH, HOME: "/h", OPENAI_API_KEY: "sk-1", MY_TOKEN: "t", OTHER: "o" };
    const plain = new LocalExecutionEnvironment({ workingDirectory: dir, baseEnv: base });
    const r = await plain.execCommand(`echo "\${OPENAI_API_KEY:-none} \${MY_TOKEN:-none} $OTHER $HOME"`);
    expect(r.stdout).toBe("none none o /h\n");
    const allowing = new LocalExecutionEnvironment({
      workingDirectory: dir,
      baseEnv: base,
      envPolicy: { allowSecrets: ["MY_TOKEN"] },
    });
    expect((await allowing.execCommand("echo $MY_TOKEN")).stdout).toBe("t\n");
  });
});

describe("env-var policy", () => {
  it("always passes the core variables, the host's TERM included, to commands", async () => {
    const core = {
      PATH: process.env.PATH,
      HOME: "/home/u",
      USER: "u",
      SHELL: "/bin/zsh",
      LANG: "C.UTF-8",
      TERM: "xterm-256color",
      TMPDIR: "/tmp/u",
      GOPATH: "/go",
      CARGO_HOME: "/cargo",
      NVM_DIR: "/nvm",
    };
    const names = Object.keys(core).slice(1);
    const show = names.map((n) => `${n}=\${${n}:-unset}`).join(" ");
    for (const inherit of ["all", "core"] as const) {
      const e = new LocalExecutionEnvironment({
        workingDirectory: dir,
        baseEnv: { ...core, RANDOM_SETTING: "r", SERVICE_PASSWORD: "p" },
        envPolicy: { inherit },
      });
      const r = await e.execCommand(`echo ${show} R=\${RANDOM_SETTING:-unset} P=\${SERVICE_PASSWORD:-unset}`);
      const expected = names.map((n) => `${n}=${core[n as keyof typeof core]}`).join(" ");
      expect(r.stdout).toBe(`${expected} R=${inherit === "all" ? "r" : "unset"} P=unset\n`);
    }
    const bare = new LocalExecutionEnvironment({ workingDirectory: dir, baseEnv: { HOME: "/h" } });
    expect((await bare.execCommand('echo "$TERM $HOME"')).stdout).toBe("dumb /h\n");
    const clean = new LocalExecutionEnvironment({
      workingDirectory: dir,
      baseEnv: core,
      envPolicy: { inherit: "none" },
    });
    expect((await clean.execCommand(`echo "\${HOME:-unset} $TERM $CI"`)).stdout).toBe("unset dumb 1\n");
  });

  const source = {
    PATH: "/bin",
    HOME: "/home/u",
    GOPATH: "/go",
    OPENAI_API_KEY: "x",
    anthropic_api_key: "x",
    AWS_SECRET: "x",
    GITHUB_TOKEN: "x",
    DB_PASSWORD: "x",
    GCP_CREDENTIAL: "x",
    EDITOR_THEME: "dark",
  };
  it.each([
    ["all", {}, ["PATH", "HOME", "GOPATH", "EDITOR_THEME"]],
    ["core", { inherit: "core" }, ["PATH", "HOME", "GOPATH"]],
    ["none", { inherit: "none" }, []],
    [
      "all + allowed secret",
      { allowSecrets: ["github_token"] },
      ["PATH", "HOME", "GOPATH", "GITHUB_TOKEN", "EDITOR_THEME"],
    ],
    [
      "core + allowed secret",
      { inherit: "core", allowSecrets: ["OPENAI_API_KEY"] },
      ["PATH", "HOME", "GOPATH", "OPENAI_API_KEY"],
    ],
  ] as const)("%s", (_name, policy, expected) => {
    expect(Object.keys(filterEnv(source, policy)).sort()).toEqual([...expected].sort());
  });
});

describe("readFile on a large file", () => {
  it("reads a window far into a file bigger than any buffer without loading it", async () => {
    const path = join(dir, "big.log");
    const handle = await open(path, "w");
    const line = `${"y".repeat(99)}\n`;
    const block = line.repeat(10_000);
    for (let i = 0; i < 30; i++) await handle.write(block); // 300 000 lines, 30 MB
    await handle.close();
    const text = await env.readFile("big.log", { offset: 250_001, limit: 2 });
    expect(text).toBe(`${"y".repeat(99)}\n${"y".repeat(99)}`);
  });
});

describe("confined environment", () => {
  let root: string;
  let confined: ReturnType<typeof confinedEnvironment>;
  beforeAll(async () => {
    root = join(dir, "root");
    await mkdir(join(root, "sub"), { recursive: true });
    await writeFile(join(root, "ok.txt"), "ok");
    await writeFile(join(outside, "secret.txt"), "secret");
    await symlink(join(outside, "secret.txt"), join(root, "link-file"));
    await symlink(outside, join(root, "link-dir"));
    await symlink(join(root, "ok.txt"), join(root, "inner-link"));
    confined = confinedEnvironment(new LocalExecutionEnvironment({ workingDirectory: root }));
  });

  it.each([
    ["../x"],
    ["/etc/passwd"],
    ["link-file"],
    ["link-dir/secret.txt"],
    ["link-dir/new-file.txt"],
    ["link-dir/new/deeper.txt"],
    ["sub/../../x"],
  ])("rejects %s", async (p) => {
    await expect(confined.readFile(p)).rejects.toBeInstanceOf(PathOutsideRootError);
    await expect(confined.writeFile(p, "x")).rejects.toBeInstanceOf(PathOutsideRootError);
  });

  it("allows paths inside, absolute or relative, and symlinks that stay inside", async () => {
    expect(await confined.readFile(join(root, "ok.txt"))).toBe("ok");
    expect(await confined.readFile("sub/../ok.txt")).toBe("ok");
    expect(await confined.readFile("inner-link")).toBe("ok");
    await confined.writeFile("sub/new.txt", "n");
    expect(await confined.readFile("sub/new.txt")).toBe("n");
  });

  it.each(["../x", "link-dir", "link-file", outsideMarker])(
    "refuses %s for every file, listing, search and command call",
    async (raw) => {
      const p = raw === outsideMarker ? outside : raw;
      const refused = [
        confined.deleteFile(p),
        confined.fileExists(p),
        confined.stat(p),
        confined.readFileBytes(p),
        confined.listDirectory(p),
        confined.grep("secret", p),
        confined.glob("**/*", p),
        confined.execCommand("ls", { workingDir: p }),
      ];
      for (const call of refused) await expect(call).rejects.toBeInstanceOf(PathOutsideRootError);
      expect(() => confined.resolvePath(p)).toThrow(PathOutsideRootError);
    },
  );

  it("turns an escape attempt into an error result for the tools, and nothing outside changes", async () => {
    const ctx = { toolCallId: "c" };
    const read = (await readFileTool().executor(
      { file_path: "link-dir/secret.txt" },
      confined,
      ctx,
    )) as ToolOutput;
    expect(read.isError).toBe(true);
    expect(read.output).toBe(`Path is outside the allowed root ${root}: link-dir/secret.txt`);
    const write = (await writeFileTool().executor(
      { file_path: "link-dir/secret.txt", content: "pwned" },
      confined,
      ctx,
    )) as ToolOutput;
    expect(write.isError).toBe(true);
    const edit = (await editFileTool().executor(
      { file_path: "../env-outside/x", old_string: "", new_string: "x" },
      confined,
      ctx,
    )) as ToolOutput;
    expect(edit.isError).toBe(true);
    const patch = (await applyPatchTool().executor(
      { patch: "*** Begin Patch\n*** Update File: link-file\n@@\n-secret\n+pwned\n*** End Patch" },
      confined,
      ctx,
    )) as ToolOutput;
    expect(patch.isError).toBe(true);
    expect(patch.output).toContain("outside the allowed root");
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret");
    const listed = (await listDirTool().executor({ path: "." }, confined, ctx)) as ToolOutput;
    // Symlinks are listed by neither walk nor search, so nothing outside shows through them.
    expect(listed.output).not.toContain("secret");
    const found = (await grepTool().executor({ pattern: "secret" }, confined, ctx)) as ToolOutput;
    expect(found.output).toBe("No matches found.");
  });

  it("reports path and root on the error", async () => {
    await expect(confined.readFile("../x")).rejects.toMatchObject({ path: "../x", root });
  });
});

describe("read-only and logging wrappers", () => {
  it("refuses writes and deletes with the spec's message but still reads", async () => {
    await env.writeFile("ro.txt", "keep");
    const ro = readOnlyEnvironment(env);
    await expect(ro.writeFile("ro.txt", "x")).rejects.toBeInstanceOf(ReadOnlyError);
    await expect(ro.deleteFile("ro.txt")).rejects.toThrow("Write operations are disabled in read-only mode");
    expect(await ro.readFile("ro.txt")).toBe("keep");
  });

  it("logs calls with durations and failures", async () => {
    const entries: EnvironmentLogEntry[] = [];
    const logged = loggingEnvironment(env, (e) => entries.push(e));
    await logged.writeFile("log.txt", "x");
    await expect(logged.readFile("missing.txt")).rejects.toThrow();
    expect(entries.map((e) => [e.method, e.target, e.ok])).toEqual([
      ["writeFile", "log.txt", true],
      ["readFile", "missing.txt", false],
    ]);
    expect(entries[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });
});
