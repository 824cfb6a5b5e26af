import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { link, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bwrapArguments,
  createSandboxPolicy,
  type ExecResult,
  LocalExecutionEnvironment,
  probeBubblewrap,
  type SandboxEscapeRequest,
  SandboxedExecutionEnvironment,
  shellTool,
} from "../src/index.js";

// The escape suite runs commands an attacker would write inside the real bubblewrap sandbox and
// judges each by its effect on the host (files, processes, connections), not by exit codes.
// It is skipped, with the reason in its name, only where bwrap cannot run at all.
const status = await probeBubblewrap();
const reason = status.available ? "" : ` (skipped: ${status.reason})`;
if (!status.available) console.warn(`sandbox escape suite skipped: ${status.reason}`);

const SECRET = "canary-secret-7f3a91";
const KEY = "sk-canary-api-key-55e0c2";

let base: string;
let project: string;
let outside: string;
let home: string;
let attractorHome: string;
let env: SandboxedExecutionEnvironment;
let listener: Server;
let port: number;
let connections = 0;
let hostSleeper: ReturnType<typeof spawn>;

interface Row {
  readonly group: string;
  readonly name: string;
  readonly expected: "blocked" | "works";
  outcome?: "blocked" | "works";
}
const rows: Row[] = [];

/** Records a row and asserts it: an escape that succeeded fails the test. */
async function row(
  group: string,
  name: string,
  expected: Row["expected"],
  attempt: () => Promise<boolean>,
): Promise<void> {
  const entry: Row = { group, name, expected };
  rows.push(entry);
  const succeeded = await attempt();
  entry.outcome = succeeded ? "works" : "blocked";
  expect(entry.outcome, `${group}: ${name}`).toBe(expected);
}

const run = (command: string, e: SandboxedExecutionEnvironment | LocalExecutionEnvironment = env) =>
  e.execCommand(command, { timeoutMs: 20_000 });

const shows = (result: ExecResult, text: string) => result.output.includes(text);

/** Processes on the host whose command line contains a marker. */
function hostProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (cmd.includes(marker) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Whether a process carrying the marker is still there, allowing for signals to be delivered. */
async function survives(marker: string): Promise<boolean> {
  for (let i = 0; i < 50 && hostProcesses(marker).length > 0; i++)
    await new Promise((r) => setTimeout(r, 20));
  const left = hostProcesses(marker);
  for (const pid of left) process.kill(pid, "SIGKILL");
  return left.length > 0;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  if (!status.available) return;
  // Not under /tmp: the sandbox gives commands a private /tmp, so the host's is not even visible,
  // and "outside" must be a directory a command could otherwise see.
  base = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "sandbox-escape-"));
  project = join(base, "project");
  outside = join(base, "outside");
  home = join(base, "home");
  attractorHome = join(base, "attractor-home");
  await mkdir(project);
  await mkdir(outside);
  await writeFile(join(outside, "canary.txt"), "original\n");
  for (const [file, content] of [
    [".ssh/id_ed25519", SECRET],
    [".aws/credentials", SECRET],
    [".config/gcloud/application_default_credentials.json", SECRET],
    [".gnupg/private-keys-v1.d/key", SECRET],
    [".netrc", `machine example.com password ${SECRET}`],
    [".docker/config.json", `{"auths":{"x":{"auth":"${SECRET}"}}}`],
    [".attractor/settings.json", `{"baseUrl":"${SECRET}"}`],
    [".gitconfig", "[user]\n\tname = Sandbox Test\n\temail = sandbox@example.invalid\n"],
  ] as const) {
    await mkdir(join(home, file, ".."), { recursive: true });
    await writeFile(join(home, file), content);
  }
  await mkdir(attractorHome, { recursive: true });
  await writeFile(join(attractorHome, "session.jsonl"), SECRET);
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({
      name: "p",
      version: "1.0.0",
      scripts: { build: "node build.js", test: "node test.js" },
    }),
  );
  await writeFile(
    join(project, "build.js"),
    "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.js','built');",
  );
  await writeFile(
    join(project, "test.js"),
    "if (require('fs').readFileSync('dist/out.js','utf8') !== 'built') process.exit(1); console.log('tests pass');",
  );
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: project, env: { ...process.env, HOME: home } });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "initial");
  listener = createServer((socket) => {
    connections++;
    socket.end("hello from outside\n");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as { port: number }).port;
  // Stands for the agent's process: it was started with an API key in its environment, which
  // /proc/<pid>/environ shows to any process of the same user that can see it.
  hostSleeper = spawn("sleep", ["300"], { stdio: "ignore", env: { ...process.env, ANTHROPIC_API_KEY: KEY } });
  env = new SandboxedExecutionEnvironment({
    workingDirectory: project,
    baseEnv: { ...process.env, HOME: home, ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY },
    sandbox: { home, hiddenPaths: [attractorHome] },
  });
});

afterAll(async () => {
  if (!status.available) return;
  hostSleeper.kill("SIGKILL");
  await env.cleanup();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  await rm(base, { recursive: true, force: true });
  const width = Math.max(...rows.map((r) => `${r.group}: ${r.name}`.length));
  const lines = rows.map(
    (r) =>
      `${`${r.group}: ${r.name}`.padEnd(width)}  expected ${r.expected.padEnd(7)}  got ${r.outcome ?? "not run"}${r.outcome !== undefined && r.outcome !== r.expected ? "   <-- FAIL" : ""}`,
  );
  const attacks = rows.filter((r) => r.expected === "blocked");
  const escaped = attacks.filter((r) => r.outcome !== "blocked").length;
  const work = rows.filter((r) => r.expected === "works");
  const broken = work.filter((r) => r.outcome !== "works").length;
  console.log(
    `\nSandbox escape suite (bubblewrap)\n${lines.join("\n")}\n` +
      `escapes: ${escaped} / ${attacks.length}; normal work failing: ${broken} / ${work.length}\n`,
  );
});

describe.skipIf(!status.available)(`sandbox escape suite${reason}`, () => {
  it("writes outside the project fail", async () => {
    const canary = () => readFile(join(outside, "canary.txt"), "utf8").then((t) => t !== "original\n");
    await row("write outside", "absolute path", "blocked", async () => {
      await run(`echo x > ${outside}/abs.txt`);
      return existsSync(join(outside, "abs.txt"));
    });
    await row("write outside", "../ path", "blocked", async () => {
      await run("echo x > ../outside/rel.txt");
      return existsSync(join(outside, "rel.txt"));
    });
    await row("write outside", "symlink to a directory made by the command", "blocked", async () => {
      await run(`ln -s ${outside} dirlink && echo x > dirlink/via-link.txt`);
      return existsSync(join(outside, "via-link.txt"));
    });
    await row("write outside", "symlink to a file made by the command", "blocked", async () => {
      await run(`ln -s ${outside}/canary.txt filelink && echo pwned > filelink`);
      return canary();
    });
    await row("write outside", "hard link made by the command", "blocked", async () => {
      await run(`ln ${outside}/canary.txt hardlink; echo pwned >> hardlink`);
      return canary();
    });
    await row("write outside", "home directory", "blocked", async () => {
      await run("echo x > ~/.bashrc-escape");
      return existsSync(join(home, ".bashrc-escape"));
    });
    await row("write outside", "/etc", "blocked", async () => {
      const name = `/etc/attractor-escape-${process.pid}`;
      await run(`touch ${name}`);
      const wrote = existsSync(name);
      if (wrote) await rm(name);
      return wrote;
    });
    await row("write outside", "/tmp is private: host /tmp untouched", "blocked", async () => {
      const name = `attractor-escape-${process.pid}`;
      await run(`echo x > /tmp/${name}`);
      return existsSync(join("/tmp", name));
    });
    await row("write outside", "remount / read-write", "blocked", async () => {
      await run(`mount -o remount,rw,bind / && touch ${outside}/remount.txt`);
      return existsSync(join(outside, "remount.txt"));
    });
    await row(
      "write outside",
      "a fake bwrap planted in the project, first on the PATH",
      "blocked",
      async () => {
        await mkdir(join(project, "bin"), { recursive: true });
        // Drops the sandbox's arguments and runs the command as it is.
        await writeFile(
          join(project, "bin/bwrap"),
          '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n',
          { mode: 0o755 },
        );
        const planted = new SandboxedExecutionEnvironment({
          workingDirectory: project,
          baseEnv: { ...process.env, HOME: home },
          sandbox: { home, searchPath: `${join(project, "bin")}:bin:${process.env.PATH}` },
        });
        try {
          await planted.execCommand(`touch ${outside}/planted.txt`);
          return existsSync(join(outside, "planted.txt"));
        } finally {
          await planted.cleanup();
          await rm(join(project, "bin"), { recursive: true, force: true });
        }
      },
    );
    await row("write outside", "mount over the project's parent", "blocked", async () => {
      await run(`mount -t tmpfs none ${outside}; touch ${outside}/mounted.txt`);
      return existsSync(join(outside, "mounted.txt"));
    });
  });

  it("git hooks and git config stay read-only", async () => {
    await row("git", "write .git/hooks/pre-commit", "blocked", async () => {
      await run(
        "printf '#!/bin/sh\\ntouch /tmp/hooked\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
      );
      return existsSync(join(project, ".git/hooks/pre-commit"));
    });
    await row("git", "replace .git/hooks", "blocked", async () => {
      await run(
        "mv .git/hooks .git/hooks-old || rm -rf .git/hooks; mkdir -p .git/hooks && echo x > .git/hooks/post-commit",
      );
      return existsSync(join(project, ".git/hooks/post-commit"));
    });
    await row("git", "set core.hooksPath in .git/config", "blocked", async () => {
      await run(`git config core.hooksPath ${outside}`);
      return readFileSync(join(project, ".git/config"), "utf8").includes("hooksPath");
    });
    await row("git", "hooks of a repository an earlier command created", "blocked", async () => {
      const fresh = join(base, "fresh");
      await mkdir(fresh);
      const later = new SandboxedExecutionEnvironment({
        workingDirectory: fresh,
        baseEnv: { ...process.env, HOME: home },
        sandbox: { home },
      });
      try {
        await later.execCommand("git init -q");
        await later.execCommand("echo 'touch /tmp/x' > .git/hooks/pre-commit");
        return existsSync(join(fresh, ".git/hooks/pre-commit"));
      } finally {
        await later.cleanup();
      }
    });
    await row("git", "a submodule's hooks", "blocked", async () => {
      const lib = join(base, "lib");
      await mkdir(lib);
      const git = (cwd: string, ...args: string[]) =>
        execFileSync("git", ["-c", "protocol.file.allow=always", ...args], {
          cwd,
          env: { ...process.env, HOME: home },
        });
      git(lib, "init", "-q");
      await writeFile(join(lib, "x.txt"), "x");
      git(lib, "add", "x.txt");
      git(lib, "commit", "-qm", "lib");
      git(project, "submodule", "add", "-q", lib, "lib");
      await run(
        "echo 'touch /tmp/x' > .git/modules/lib/hooks/pre-commit; echo 'touch /tmp/x' > lib/.git/hooks/pre-commit",
      );
      return existsSync(join(project, ".git/modules/lib/hooks/pre-commit"));
    });
    await row("git", "a .git file forged to point outside, then a write there", "blocked", async () => {
      const forged = join(base, "forged");
      await mkdir(forged);
      const later = new SandboxedExecutionEnvironment({
        workingDirectory: forged,
        baseEnv: { ...process.env, HOME: home },
        sandbox: { home },
      });
      try {
        await later.execCommand(
          `echo 'gitdir: ${outside}' > .git && echo '${join(forged, ".git")}' > /tmp/gitdir`,
        );
        await later.execCommand(`touch ${outside}/via-forged-git.txt`);
        return existsSync(join(outside, "via-forged-git.txt"));
      } finally {
        await later.cleanup();
      }
    });
    await row("git", "replace .git/config by rename", "blocked", async () => {
      await run(
        "cp .git/config /tmp/c && echo '[core]\\n\\tfsmonitor = touch x' >> /tmp/c && mv /tmp/c .git/config",
      );
      return readFileSync(join(project, ".git/config"), "utf8").includes("fsmonitor");
    });
  });

  it("hidden paths cannot be read", async () => {
    for (const [name, command] of [
      ["~/.ssh", "cat ~/.ssh/id_ed25519"],
      ["~/.aws", "cat ~/.aws/credentials"],
      ["~/.config/gcloud", "cat ~/.config/gcloud/application_default_credentials.json"],
      ["~/.gnupg", "cat ~/.gnupg/private-keys-v1.d/key"],
      ["~/.netrc", "cat ~/.netrc"],
      ["~/.docker/config.json", "cat ~/.docker/config.json"],
      ["~/.attractor", "cat ~/.attractor/settings.json"],
      ["ATTRACTOR_HOME", `cat ${attractorHome}/session.jsonl`],
      ["grep over the home", "grep -r . ~ 2>/dev/null"],
      ["symlink made by the command", "ln -s ~/.ssh/id_ed25519 k && cat k"],
      ["unmount the mask", "umount ~/.ssh; cat ~/.ssh/id_ed25519"],
    ] as const) {
      await row("hidden path", name, "blocked", async () => shows(await run(command), SECRET));
    }
  });

  it("the network is off", async () => {
    const before = connections;
    await row("network", "bash /dev/tcp to a loopback listener outside", "blocked", async () => {
      const r = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
      return shows(r, "hello from outside");
    });
    await row("network", "node net.connect to the listener", "blocked", async () => {
      const r = await run(
        `node -e "require('net').connect(${port},'127.0.0.1').on('data',d=>process.stdout.write(d)).on('error',e=>{console.error(e.message);process.exit(1)})"`,
      );
      return shows(r, "hello from outside");
    });
    await row("network", "curl to the listener", "blocked", async () => {
      const r = await run(`curl -s --max-time 5 http://127.0.0.1:${port}/`);
      return shows(r, "hello from outside");
    });
    expect(connections).toBe(before);
  });

  it("nothing the command starts outlives it", async () => {
    // Each command waits until its child is up (it touches a file first), so the child is
    // running when the command ends; afterwards the host's process table is searched for it.
    for (const [name, launch] of [
      ["background job", "bash -c 'touch up-bg; sleep 300; : MARK-bg' >/dev/null 2>&1 &"],
      ["setsid", "setsid bash -c 'touch up-setsid; sleep 300; : MARK-setsid' >/dev/null 2>&1 &"],
      ["nohup + disown", "nohup bash -c 'touch up-nohup; sleep 300; : MARK-nohup' >/dev/null 2>&1 & disown"],
      [
        "double-fork daemon",
        "( setsid bash -c 'touch up-daemon; sleep 300; : MARK-daemon' >/dev/null 2>&1 & )",
      ],
    ] as const) {
      const marker = launch.match(/MARK-\w+/)?.[0] as string;
      const up = launch.match(/up-\w+/)?.[0] as string;
      await row("outlive", name, "blocked", async () => {
        const r = await run(`${launch}\nuntil [ -e ${up} ]; do sleep 0.01; done; echo started`);
        expect(r.output).toContain("started");
        return survives(marker);
      });
    }
  });

  it("a command dies with the host when the host is killed", async () => {
    await row(
      "outlive",
      "the host killed with SIGKILL mid-command (--die-with-parent)",
      "blocked",
      async () => {
        if (!status.available) return true;
        const tmp = await mkdtemp(join(base, "host-tmp-"));
        const args = bwrapArguments(createSandboxPolicy({ projectDirs: [project], home, env: {} }), {
          cwd: project,
          tmpDir: tmp,
          disableUserns: status.disableUserns,
        });
        // A stand-in host: a shell that started the sandboxed command and is then killed outright.
        const host = spawn(
          "bash",
          [
            "-c",
            '"$@" & wait',
            "host",
            status.path,
            ...args,
            "--",
            "/bin/bash",
            "-c",
            "sleep 300; : MARK-orphan",
          ],
          { stdio: "ignore" },
        );
        // Killed only once the command itself runs inside (the host's own command line carries the
        // marker too): bwrap arms --die-with-parent as it starts.
        const commandRuns = () =>
          hostProcesses("MARK-orphan").some((pid) => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("/bin/bash\0");
            } catch {
              return false;
            }
          });
        for (let i = 0; i < 250 && !commandRuns(); i++) await new Promise((r) => setTimeout(r, 20));
        expect(commandRuns()).toBe(true);
        host.kill("SIGKILL");
        return survives("MARK-orphan");
      },
    );
  });

  it("privileges cannot be gained and the agent cannot be reached", async () => {
    await row("privilege", "setuid to another user (setpriv)", "blocked", async () => {
      const r = await run("setpriv --reuid=12345 --regid=12345 --clear-groups id -u");
      return r.exitCode === 0 && shows(r, "12345");
    });
    await row(
      "privilege",
      "capabilities through a setuid binary made by the command",
      "blocked",
      async () => {
        const r = await run(
          "cp /usr/bin/id ./suid-id && chmod u+s ./suid-id && ./suid-id -u >/dev/null; grep CapEff /proc/self/status",
        );
        return !/CapEff:\s*0+\s*$/m.test(r.output);
      },
    );
    await row("privilege", "new user namespace (unshare -r)", "blocked", async () => {
      const r = await run("unshare -r id -u");
      return r.exitCode === 0;
    });
    await row("privilege", "chroot", "blocked", async () => (await run("chroot / true")).exitCode === 0);
    await row("privilege", "kill a host process", "blocked", async () => {
      await run(`kill -9 ${hostSleeper.pid}`);
      return !processAlive(hostSleeper.pid as number);
    });
  });

  it("secrets of the agent's process stay out of reach", async () => {
    await row("secrets", "API keys in the command's environment", "blocked", async () =>
      shows(await run("env"), KEY),
    );
    await row("secrets", "the agent's /proc/<pid>/environ", "blocked", async () =>
      shows(await run(`cat /proc/${hostSleeper.pid}/environ`), KEY),
    );
    await row("secrets", "every /proc/*/environ", "blocked", async () =>
      shows(await run("cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"), KEY),
    );
    await row("secrets", "the parent's /proc/$PPID/environ", "blocked", async () =>
      shows(await run("cat /proc/$PPID/environ | tr '\\0' '\\n'"), KEY),
    );
  });

  it("normal work succeeds", async () => {
    await row("work", "write, edit and delete in the project", "works", async () => {
      const r = await run(
        "mkdir -p src && echo hi > src/a.txt && sed -i s/hi/ho/ src/a.txt && cat src/a.txt && rm src/a.txt",
      );
      return r.exitCode === 0 && shows(r, "ho");
    });
    await row("work", "read outside the project", "works", async () => {
      const r = await run("head -c 4 /etc/passwd && ls / >/dev/null");
      return r.exitCode === 0;
    });
    await row("work", "/tmp across commands", "works", async () => {
      await run("echo kept > /tmp/state.txt");
      const r = await run("cat /tmp/state.txt && mktemp");
      return r.exitCode === 0 && shows(r, "kept");
    });
    await row("work", "npm run build && npm test", "works", async () => {
      const r = await run("npm run build --silent && npm test --silent");
      return r.exitCode === 0 && shows(r, "tests pass") && existsSync(join(project, "dist/out.js"));
    });
    await row("work", "git add and git commit", "works", async () => {
      const r = await run(
        "echo change > change.txt && git add change.txt && git commit -qm 'from the sandbox' && git log --oneline -1",
      );
      return r.exitCode === 0 && shows(r, "from the sandbox");
    });
    await row("work", "git status, diff, branch", "works", async () => {
      const r = await run("git status --short && git diff HEAD~1 --stat && git branch feature && git branch");
      return r.exitCode === 0 && shows(r, "feature");
    });
    await row("work", "background job within the command", "works", async () => {
      const r = await run("(sleep 0.1; echo done > bg.txt) & wait; cat bg.txt");
      return r.exitCode === 0 && shows(r, "done");
    });
  });

  it("a timeout or an abort ends the sandboxed command and everything it started", async () => {
    const timedOut = await env.execCommand("bash -c 'touch up-timeout; sleep 300; : MARK-timeout' & wait", {
      timeoutMs: 2_000,
    });
    expect(timedOut.timedOut).toBe(true);
    expect(existsSync(join(project, "up-timeout"))).toBe(true);
    expect(await survives("MARK-timeout")).toBe(false);
    const controller = new AbortController();
    const running = env.execCommand("bash -c 'touch up-abort; sleep 300; : MARK-abort' & wait", {
      signal: controller.signal,
      timeoutMs: 20_000,
    });
    for (let i = 0; i < 250 && !existsSync(join(project, "up-abort")); i++)
      await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect((await running).aborted).toBe(true);
    expect(await survives("MARK-abort")).toBe(false);
  });

  it("a failure caused by the sandbox is recognised and explained to the model", async () => {
    const write = await run(`echo x > ${outside}/explained.txt`);
    expect(write.sandboxBlock?.kind).toBe("write-outside");
    expect(write.sandboxBlock?.message).toContain("sandbox");
    const net = await run(`exec 3<>/dev/tcp/127.0.0.1/${port}`);
    expect(net.sandboxBlock?.kind).toBe("network");
    const hidden = await run("cat ~/.ssh/id_ed25519");
    expect(hidden.sandboxBlock?.kind).toBe("hidden-path");
    const plain = await run("ls no-such-file-here");
    expect(plain.exitCode).not.toBe(0);
    expect(plain.sandboxBlock).toBeUndefined();
    const tool = shellTool();
    const output = await tool.executor({ command: `touch ${outside}/via-tool.txt` }, env, {} as never);
    expect(output.isError).toBe(true);
    expect(output.output).toMatch(/\[sandbox\] .*tried to write outside/);
  });

  it("the host may re-run a blocked command outside the sandbox, once or always", async () => {
    const asked: SandboxEscapeRequest[] = [];
    let answer: "once" | "always" | "no" = "no";
    const escaping = new SandboxedExecutionEnvironment({
      workingDirectory: project,
      baseEnv: { ...process.env, HOME: home },
      sandbox: {
        home,
        onBlocked: async (request) => {
          asked.push(request);
          return answer;
        },
      },
    });
    try {
      const target = join(outside, "allowed.txt");
      const denied = await escaping.execCommand(`touch ${target}`);
      expect(denied.sandboxBlock?.kind).toBe("write-outside");
      expect(existsSync(target)).toBe(false);
      answer = "once";
      const once = await escaping.execCommand(`touch ${target}`);
      expect(once.unsandboxed).toBe(true);
      expect(existsSync(target)).toBe(true);
      await rm(target);
      answer = "always";
      await escaping.execCommand(`touch ${target}`);
      await rm(target);
      answer = "no";
      const again = await escaping.execCommand(`touch ${target}`);
      expect(again.unsandboxed).toBe(true);
      expect(existsSync(target)).toBe(true);
      expect(asked.map((r) => r.block.kind)).toEqual(["write-outside", "write-outside", "write-outside"]);
    } finally {
      await escaping.cleanup();
    }
  });

  it("modes: read-only keeps the project read-only; network and full access when chosen", async () => {
    const readOnly = new SandboxedExecutionEnvironment({
      workingDirectory: project,
      baseEnv: { ...process.env, HOME: home },
      sandbox: { home, mode: "read-only" },
    });
    const networked = new SandboxedExecutionEnvironment({
      workingDirectory: project,
      baseEnv: { ...process.env, HOME: home },
      sandbox: { home, network: true },
    });
    const full = new SandboxedExecutionEnvironment({
      workingDirectory: project,
      baseEnv: { ...process.env, HOME: home },
      sandbox: { home, mode: "danger-full-access" },
    });
    try {
      const r = await readOnly.execCommand("echo x > ro.txt");
      expect(existsSync(join(project, "ro.txt"))).toBe(false);
      expect(r.sandboxBlock?.kind).toBe("write-outside");
      expect((await readOnly.execCommand("echo t > /tmp/t && cat /tmp/t")).output).toContain("t");
      const n = await networked.execCommand(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
      expect(n.output).toContain("hello from outside");
      expect((await networked.execCommand("cat ~/.ssh/id_ed25519")).output).not.toContain(SECRET);
      await full.execCommand(`touch ${outside}/full.txt`);
      expect(existsSync(join(outside, "full.txt"))).toBe(true);
      expect(await full.availability()).toMatchObject({ active: false });
    } finally {
      await Promise.all([readOnly.cleanup(), networked.cleanup(), full.cleanup()]);
    }
  });

  it("a pre-existing hard link is the same file: outside the sandbox's reach to tell apart", async () => {
    // Recorded, not counted: a hard link the user made inside the project to a file outside is
    // the same inode, so writes through it land outside; commands cannot create one (EXDEV).
    await link(join(outside, "canary.txt"), join(project, "user-made-link.txt")).catch(() => {});
    const r = await run("ln ../outside/canary.txt another-link");
    expect(r.exitCode).not.toBe(0);
  });
});

// CI and this suite usually run as root, where bwrap needs no user namespace; users do not. The
// same bwrap arguments are therefore also run as an unprivileged user (through setpriv), with a
// control first showing that user could do each thing without the sandbox.
const asRoot = process.getuid?.() === 0;
const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
const unprivilegedSkip = !status.available
  ? reason
  : !asRoot || setpriv === undefined
    ? " (skipped: needs root and setpriv to switch to an unprivileged user)"
    : "";

describe.skipIf(unprivilegedSkip !== "")(
  `the same sandbox as an unprivileged user${unprivilegedSkip}`,
  () => {
    it("blocks writes outside, hidden reads, the network, outliving processes and privileges", async () => {
      if (!status.available || setpriv === undefined) return;
      const nobody = 65534;
      const ubase = await mkdtemp(
        join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "sandbox-unprivileged-"),
      );
      try {
        const uproject = join(ubase, "project");
        const uoutside = join(ubase, "outside");
        const uhome = join(ubase, "home");
        const utmp = join(ubase, "tmp");
        for (const d of [uproject, uoutside, join(uhome, ".ssh"), utmp]) await mkdir(d, { recursive: true });
        await writeFile(join(uhome, ".ssh/id_ed25519"), SECRET);
        execFileSync("chmod", ["755", ubase]);
        execFileSync("chown", ["-R", `${nobody}:${nobody}`, uproject, uoutside, uhome, utmp]);
        const policy = createSandboxPolicy({ projectDirs: [uproject], home: uhome, env: {} });
        const args = bwrapArguments(policy, {
          cwd: uproject,
          tmpDir: utmp,
          disableUserns: status.disableUserns,
        });
        const as = (sandboxed: boolean, command: string) =>
          new Promise<{ code: number; output: string }>((resolve) => {
            const argv = [`--reuid=${nobody}`, `--regid=${nobody}`, "--clear-groups", "--"];
            const program = sandboxed
              ? [status.path, ...args, "--", "/bin/bash", "-c", command]
              : ["/bin/bash", "-c", command];
            execFile(
              setpriv,
              [...argv, ...program],
              {
                cwd: uproject,
                env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: uhome },
                timeout: 20_000,
              },
              (error, stdout, stderr) =>
                resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
            );
          });
        const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
        const cases: [string, string, (r: { code: number; output: string }) => boolean][] = [
          [
            "write outside the project",
            `touch ${uoutside}/x && echo wrote`,
            (r) => r.output.includes("wrote"),
          ],
          ["read ~/.ssh", "cat ~/.ssh/id_ed25519", (r) => r.output.includes(SECRET)],
          ["connect to the loopback listener", connect, (r) => r.output.includes("hello from outside")],
        ];
        for (const [name, command, escaped] of cases) {
          // The control: without the sandbox the same user can do it, so a block is the sandbox's.
          expect(escaped(await as(false, command)), `control: ${name}`).toBe(true);
          await row("unprivileged", name, "blocked", async () => escaped(await as(true, command)));
        }
        await row("unprivileged", "setsid process outlives the command", "blocked", async () => {
          await as(
            true,
            "setsid bash -c 'touch up; sleep 300; : MARK-unpriv' >/dev/null 2>&1 & until [ -e up ]; do sleep 0.01; done",
          );
          return survives("MARK-unpriv");
        });
        await row("unprivileged", "capabilities or a new user namespace", "blocked", async () => {
          const caps = await as(true, "grep CapEff /proc/self/status; unshare -r true && echo unshared");
          return !/CapEff:\s*0+\s*$/m.test(caps.output) || caps.output.includes("unshared");
        });
        await row("unprivileged", "write and commit in the project", "works", async () => {
          const r = await as(
            true,
            "echo hi > a.txt && git init -q && git add a.txt && git -c user.name=u -c user.email=u@example.invalid commit -qm one && git log --oneline | wc -l",
          );
          return r.code === 0 && r.output.trim().endsWith("1");
        });
      } finally {
        await rm(ubase, { recursive: true, force: true });
      }
    });
  },
);

describe.skipIf(!status.available)(`without the sandbox (what remains possible)${reason}`, () => {
  it("a setsid child outlives the command and the agent's /proc environ is readable", async () => {
    const local = new LocalExecutionEnvironment({ workingDirectory: project });
    try {
      await local.execCommand(
        "setsid bash -c 'touch up-local; sleep 300; : MARK-local' >/dev/null 2>&1 & until [ -e up-local ]; do sleep 0.01; done",
      );
      expect(await survives("MARK-local")).toBe(true);
      const environ = await local.execCommand(`cat /proc/${hostSleeper.pid}/environ | tr '\\0' '\\n'`);
      expect(environ.output).toContain(KEY);
      // The shell's own environment stays clean either way: the secret filter drops *_API_KEY.
      const own = await new LocalExecutionEnvironment({
        workingDirectory: project,
        baseEnv: { ...process.env, ANTHROPIC_API_KEY: KEY },
      }).execCommand("env");
      expect(own.output).not.toContain(KEY);
    } finally {
      await local.cleanup();
    }
  });
});
