// `attractor --remote`: a headless run whose tools work on an SSH host (a real sshd on 127.0.0.1
// reached through an ~/.ssh/config alias), and the errors a wrong target gives.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sshdUnavailable, startSshd, type TestSshd } from "@attractor/agent/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, requireBuiltCli, runCliProcess, startScriptedModel } from "../src/testing/index.js";

const skip = sshdUnavailable();
let sshd: TestSshd;
let root: string;
let hostDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  if (skip) return;
  requireBuiltCli();
  sshd = await startSshd();
  root = await mkdtemp(join(tmpdir(), "attractor-remote-cli-"));
  hostDir = join(root, "on-the-host");
  await mkdir(join(hostDir, "src"), { recursive: true });
  await writeFile(join(hostDir, "src", "math.js"), "function add(a, b) {\n  return a - b;\n}\n");
  env = cleanEnv(root);
  await mkdir(join(env.HOME as string, ".ssh"), { recursive: true });
  await writeFile(
    join(env.HOME as string, ".ssh", "config"),
    `Host buildbox\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.username}\n  IdentityFile ${sshd.privateKeyPath}\n  UserKnownHostsFile ${sshd.knownHostsPath}\n`,
  );
  await mkdir(join(root, "here"));
}, 60_000);

afterAll(async () => {
  if (skip) return;
  await sshd?.stop();
  await rm(root, { recursive: true, force: true });
});

describe.skipIf(skip)("attractor --remote", () => {
  it("reads, edits and runs on the host; nothing is written locally", async () => {
    const model = await startScriptedModel("anthropic", [
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      {
        expect: (r) => (r.at(-1)?.includes("return a - b") ? undefined : `read gave ${r.at(-1)}`),
        calls: [
          { name: "edit_file", args: { file_path: "src/math.js", old_string: "a - b", new_string: "a + b" } },
        ],
      },
      {
        expect: (r) => (/error|denied/i.test(r.at(-1) ?? "") ? `edit failed: ${r.at(-1)}` : undefined),
        calls: [{ name: "shell", args: { command: "hostname >/dev/null && pwd && cat src/math.js" } }],
      },
      { text: "Fixed on the host." },
    ]);
    try {
      const result = await runCliProcess(
        ["-p", "fix add", "--remote", `buildbox:${hostDir}`, "--mode", "yolo", "--output-format", "json"],
        { cwd: join(root, "here"), env: { ...env, ...model.env() } },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).result).toBe("Fixed on the host.");
      expect(await readFile(join(hostDir, "src", "math.js"), "utf8")).toContain("a + b");
      const shellOutput = model.seen()[3]?.toolResults.at(-1) ?? "";
      expect(shellOutput).toContain(hostDir);
      expect(shellOutput).toContain("return a + b");
      expect(await readdir(join(root, "here"))).toEqual([]);
      // The system prompt describes the host's directory.
      expect(JSON.stringify(model.seen()[0]?.body.system)).toContain(hostDir);
    } finally {
      await model.close();
    }
  });

  it("a host key mismatch, an unreachable host or a container beside the host is a configuration error (exit 2) naming the cause", async () => {
    const model = await startScriptedModel("anthropic", []);
    try {
      await writeFile(
        join(env.HOME as string, ".ssh", "config"),
        `Host badkey\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.username}\n  IdentityFile ${sshd.privateKeyPath}\n  UserKnownHostsFile ${sshd.wrongKnownHostsPath}\n`,
        { flag: "a" },
      );
      const mismatch = await runCliProcess(["-p", "x", "--remote", "badkey:/tmp"], {
        cwd: join(root, "here"),
        env: { ...env, ...model.env() },
      });
      expect(mismatch.code).toBe(2);
      expect(mismatch.stderr).toContain("does not match");
      const relative = await runCliProcess(["-p", "x", "--remote", "buildbox:relative"], {
        cwd: join(root, "here"),
        env: { ...env, ...model.env() },
      });
      expect(relative.code).toBe(2);
      expect(relative.stderr).toContain("must be absolute");
      // Commands cannot run both on the host and in a container: neither is chosen silently.
      const both = await runCliProcess(["-p", "x", "--remote", "buildbox:/tmp", "--container", "task-1"], {
        cwd: join(root, "here"),
        env: { ...env, ...model.env() },
      });
      expect(both.code).toBe(2);
      expect(both.stderr).toContain("cannot be used together");
      expect(model.server.requests).toHaveLength(0);
    } finally {
      await model.close();
    }
  });
});
