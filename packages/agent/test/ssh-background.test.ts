// Background processes over SSH, against a real OpenSSH server on 127.0.0.1: a dev server started
// in the background on the host answers a later command, its output is read and it is stopped
// with everything it started; a prompt is answered through a terminal; a session's end and the
// environment's cleanup leave nothing running on the host; a missing program is an error.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Request } from "@attractor/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CommandError, Session, SshExecutionEnvironment } from "../src/index.js";
import { scriptedClient, sshdUnavailable, startSshd, type TestSshd } from "../src/testing/index.js";
import { BackgroundProcesses, backgroundProcessTools } from "../src/tools/processes/index.js";
import { shellTool } from "../src/tools/shell.js";
import type { RegisteredTool, ToolOutput } from "../src/types/tool.js";
import { testProfile } from "./support/fixtures.js";

const skip = sshdUnavailable();
if (skip) console.warn(`skipping the SSH background process tests: ${skip}`);

let sshd: TestSshd;
let dir: string;
const environment = () =>
  new SshExecutionEnvironment({
    host: "127.0.0.1",
    port: sshd.port,
    username: sshd.username,
    privateKeyPath: sshd.privateKeyPath,
    knownHostsPath: sshd.knownHostsPath,
    workingDirectory: dir,
  });

beforeAll(async () => {
  if (skip) return;
  sshd = await startSshd();
  dir = await mkdtemp(join(tmpdir(), "attractor-ssh-bg-"));
}, 60_000);
afterAll(async () => {
  if (skip) return;
  await sshd?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Command lines of the processes running now (the host is this machine) that contain `marker`. */
function running(marker: string): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.startsWith("ps "));
}

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const lastResult = (request: Request): string =>
  JSON.stringify(request.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "");
const tools = (): RegisteredTool[] => [shellTool({ defaultTimeoutMs: 10_000 }), ...backgroundProcessTools()];

describe.skipIf(skip)("background processes over SSH", () => {
  it("a dev server started in the background answers a later command, is read and stopped", async () => {
    const marker = `attractor-ssh-dev-${process.pid}`;
    const server = `exec -a ${marker} node -e "require('http').createServer((q,s)=>{console.log('served '+q.url);s.end('hello from the host')}).listen(0,'127.0.0.1',function(){console.log('listening on '+this.address().port)})"`;
    let port = "";
    const client = scriptedClient((request, i) => {
      switch (i) {
        case 0:
          return { toolCalls: [{ name: "shell", args: { command: server, run_in_background: true } }] };
        case 1:
          return { toolCalls: [{ name: "shell_output", args: { id: "bg1", wait_ms: 5_000 } }] };
        case 2:
          port = /listening on (\d+)/.exec(lastResult(request))?.[1] ?? "";
          return { toolCalls: [{ name: "shell", args: { command: `curl -s http://127.0.0.1:${port}/ok` } }] };
        case 3:
          return { toolCalls: [{ name: "shell_output", args: { id: "bg1", wait_ms: 2_000 } }] };
        case 4:
          return { toolCalls: [{ name: "shell_kill", args: { id: "bg1" } }] };
        default:
          return { text: "Done." };
      }
    });
    const env = environment();
    const session = new Session({ profile: testProfile(tools()), environment: env, client });
    try {
      await session.submit("start the dev server on the host and check it");
      const results = client.requests.slice(1).map(lastResult);
      expect(results[0]).toContain("Started in the background as bg1");
      expect(port).toMatch(/^\d+$/);
      expect(results[2]).toContain("hello from the host");
      expect(results[3]).toContain("served /ok");
      expect(results[4]).toContain("Stopped process bg1");
      expect(session.processes.runningCount()).toBe(0);
      expect(running(marker)).toEqual([]);
    } finally {
      await session.close();
      await env.cleanup();
    }
  });

  it("answers a `read -p` prompt on a terminal on the host", async () => {
    const env = environment();
    const processes = new BackgroundProcesses();
    const [output, input] = backgroundProcessTools() as [RegisteredTool, RegisteredTool];
    const run = async (tool: RegisteredTool, args: Record<string, unknown>) =>
      (await tool.executor(args, env, { toolCallId: "i", processes })) as ToolOutput;
    try {
      const started = await run(shellTool(), {
        command: `read -p "Apply migrations? [y/N] " answer; echo "answer was: $answer"`,
        run_in_background: true,
        tty: true,
      });
      const id = /as (bg\d+)/.exec(started.output)?.[1] as string;
      expect((await run(output, { id, wait_ms: 5_000 })).output).toContain("Apply migrations? [y/N]");
      expect((await run(input, { id, text: "y\n", wait_ms: 5_000 })).output).toContain("answer was: y");
      expect((await run(output, { id, wait_ms: 5_000 })).output).toContain("exited with code 0");
    } finally {
      await processes.stopAll();
      await env.cleanup();
    }
  });

  it("leaves nothing running on the host when the session closes, children and terminals included", async () => {
    const marker = `attractor-ssh-orphan-${process.pid}`;
    const client = scriptedClient((_request, i) =>
      i === 0
        ? {
            toolCalls: [
              {
                name: "shell",
                args: {
                  command: `bash -c 'exec -a ${marker}-plain sleep 300' & wait`,
                  run_in_background: true,
                },
              },
              {
                name: "shell",
                args: { command: `exec -a ${marker}-tty sleep 300`, run_in_background: true, tty: true },
              },
            ],
          }
        : { text: "Left them running." },
    );
    const env = environment();
    const session = new Session({ profile: testProfile(tools()), environment: env, client });
    try {
      await session.submit("start two things on the host");
      await waitFor(() => running(marker).filter((line) => line.startsWith(marker)).length === 2);
    } finally {
      await session.close();
    }
    expect(running(marker)).toEqual([]);
    await env.cleanup();
  });

  it("cleanup() stops a program the environment started, and a missing program is a CommandError", async () => {
    const marker = `attractor-ssh-cleanup-${process.pid}`;
    const env = environment();
    const proc = await env.startProcess("/bin/bash", ["-c", `exec -a ${marker} sleep 300`]);
    expect(proc.pid).toBeUndefined();
    await waitFor(() => running(marker).filter((line) => line.startsWith(marker)).length === 1);
    await expect(env.startProcess("no-such-program-here", [])).rejects.toThrow(CommandError);
    await env.cleanup();
    expect(await proc.exited).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(running(marker)).toEqual([]);
  });

  it("a dropped connection leaves nothing running on the host either", async () => {
    const marker = `attractor-ssh-dropped-${process.pid}`;
    const env = environment();
    try {
      const proc = await env.startProcess("/bin/bash", ["-c", `exec -a ${marker} sleep 300`]);
      await waitFor(() => running(marker).filter((line) => line.startsWith(marker)).length === 1);
      sshd.dropConnections();
      await proc.exited;
      await waitFor(() => running(marker).length === 0, 10_000);
    } finally {
      await env.cleanup();
    }
  });
});
