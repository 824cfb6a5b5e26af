import { execFileSync } from "node:child_process";
import type { Request } from "@attractor/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { Session } from "../src/session/session.js";
import { scriptedClient } from "../src/testing/index.js";
import { BackgroundProcesses, backgroundProcessTools } from "../src/tools/processes/index.js";
import { shellTool } from "../src/tools/shell.js";
import type { RegisteredTool, ToolOutput } from "../src/types/tool.js";
import { tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir, remove } = await tempDir());
});
afterAll(() => remove());

/** Command lines of the processes running now that contain `marker`. */
function running(marker: string): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.startsWith("ps "));
}

/** The text of the last tool result the model was sent. */
function lastResult(request: Request): string {
  const tool = request.messages.filter((m) => m.role === "tool").at(-1);
  return JSON.stringify(tool?.content ?? "");
}

const tools = (): RegisteredTool[] => [shellTool({ defaultTimeoutMs: 10_000 }), ...backgroundProcessTools()];

describe("background processes in a session", () => {
  it("starts a dev server in the background, uses it from a later command, reads and stops it; the turn never blocks", async () => {
    const server =
      "node -e \"require('http').createServer((q,s)=>{console.log('served '+q.url);s.end('hello from dev')}).listen(0,'127.0.0.1',function(){console.log('listening on '+this.address().port)})\"";
    let port = "";
    const client = scriptedClient((request, i) => {
      switch (i) {
        case 0:
          return { toolCalls: [{ name: "shell", args: { command: server, run_in_background: true } }] };
        case 1:
          return { toolCalls: [{ name: "shell_output", args: { id: "bg1", wait_ms: 5_000 } }] };
        case 2:
          port = /listening on (\d+)/.exec(lastResult(request))?.[1] ?? "";
          return {
            toolCalls: [{ name: "shell", args: { command: `curl -s http://127.0.0.1:${port}/status` } }],
          };
        case 3:
          return {
            toolCalls: [{ name: "shell_output", args: { id: "bg1", wait_ms: 2_000, filter: "^served" } }],
          };
        case 4:
          return { toolCalls: [{ name: "shell_kill", args: { id: "bg1" } }] };
        case 5:
          return { toolCalls: [{ name: "shell_output", args: { id: "bg1" } }] };
        default:
          return { text: "Done." };
      }
    });
    const session = new Session({
      profile: testProfile(tools()),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client,
    });
    const started = Date.now();
    await session.submit("start the dev server and check it");
    const results = client.requests.slice(1).map(lastResult);
    expect(results[0]).toContain("Started in the background as bg1");
    expect(port).toMatch(/^\d+$/);
    expect(results[2]).toContain("hello from dev");
    expect(results[3]).toContain("served /status");
    expect(results[3]).toContain("still running");
    expect(results[4]).toContain("Stopped process bg1");
    expect(results[5]).toMatch(/killed by SIGTERM|exited with code/);
    // A server that never exits did not hold the turn.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(session.processes.runningCount()).toBe(0);
    await session.close();
  });

  it("stops every background process, terminal ones included, when the session closes: nothing is left behind", async () => {
    const marker = `attractor-orphan-check-${process.pid}`;
    const client = scriptedClient((_request, i) =>
      i === 0
        ? {
            toolCalls: [
              // A child of a child, in the process group.
              {
                name: "shell",
                args: {
                  command: `bash -c 'exec -a ${marker}-plain sleep 300' & wait`,
                  run_in_background: true,
                },
              },
              // Under a pseudo-terminal: a session of its own, outside the group.
              {
                name: "shell",
                args: { command: `exec -a ${marker}-tty sleep 300`, run_in_background: true, tty: true },
              },
            ],
          }
        : { text: "Left them running." },
    );
    const session = new Session({
      profile: testProfile(tools()),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client,
    });
    try {
      await session.submit("start two things");
      // The two sleeps, named by the marker (their starters' command lines hold it too).
      await waitFor(() => running(marker).filter((line) => line.startsWith(marker)).length === 2);
      expect(session.processes.runningCount()).toBe(2);
    } finally {
      await session.close();
    }
    expect(running(marker)).toEqual([]);
    expect(session.processes.runningCount()).toBe(0);
  });
});

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("interactive programs through shell_input", () => {
  const env = new LocalExecutionEnvironment({ workingDirectory: process.cwd() });
  const processes = new BackgroundProcesses();
  afterAll(() => processes.stopAll());
  const [output, input, kill] = backgroundProcessTools() as [RegisteredTool, RegisteredTool, RegisteredTool];
  const shell = shellTool();
  const run = async (tool: RegisteredTool, args: Record<string, unknown>) =>
    (await tool.executor(args, env, { toolCallId: "i", processes })) as ToolOutput;

  it("answers a `read -p` prompt, which bash shows only on a terminal", async () => {
    const started = await run(shell, {
      command: `read -p "Apply migrations? [y/N] " answer; echo "answer was: $answer"`,
      run_in_background: true,
      tty: true,
    });
    const id = /as (bg\d+)/.exec(started.output)?.[1] as string;
    const prompt = await run(output, { id, wait_ms: 5_000 });
    expect(prompt.output).toContain("Apply migrations? [y/N]");
    const reply = await run(input, { id, text: "y\n", wait_ms: 5_000 });
    expect(reply.output).toContain("answer was: y");
    const end = await run(output, { id, wait_ms: 5_000 });
    expect(end.output).toContain("exited with code 0");
  });

  it("runs the command with bash on a terminal too, where $SHELL is sh or unset (as under CI)", async () => {
    for (const shellVar of ["/bin/sh", undefined]) {
      const { SHELL: _, ...rest } = process.env;
      const plainEnv = new LocalExecutionEnvironment({
        workingDirectory: process.cwd(),
        baseEnv: shellVar === undefined ? rest : { ...rest, SHELL: shellVar },
      });
      const started = (await shell.executor(
        {
          command: '[[ -t 1 ]] && exec -a bash-on-a-tty echo "$BASH_VERSION"',
          run_in_background: true,
          tty: true,
        },
        plainEnv,
        { toolCallId: "t", processes },
      )) as ToolOutput;
      const id = /as (bg\d+)/.exec(started.output)?.[1] as string;
      const end = await run(output, { id, wait_ms: 5_000 });
      expect(end.output).toMatch(/\d+\.\d+\.\d+/);
      expect(end.output).toContain("exited with code 0");
    }
  });

  it("drives a Python REPL line by line and stops it", async () => {
    const started = await run(shell, { command: "python3 -i -q", run_in_background: true, tty: true });
    const id = /as (bg\d+)/.exec(started.output)?.[1] as string;
    expect((await run(output, { id, wait_ms: 5_000 })).output).toContain(">>>");
    expect((await run(input, { id, text: "x = 6 * 7\n" })).output).toContain(">>>");
    const answer = await run(input, { id, text: "print(x + 0)\n" });
    expect(answer.output).toContain("42");
    const stopped = await run(kill, { id });
    expect(stopped.output).toContain(`Stopped process ${id}`);
    const after = await run(input, { id, text: "print(1)\n" });
    expect(after.isError).toBe(true);
    expect(after.errorCode).toBe("process_exited");
  });

  it("reports unknown ids and a shell without a session clearly", async () => {
    const unknown = await run(output, { id: "bg999" });
    expect(unknown.errorCode).toBe("unknown_process");
    const alone = (await shell.executor({ command: "sleep 1", run_in_background: true }, env, {
      toolCallId: "x",
    })) as ToolOutput;
    expect(alone.errorCode).toBe("background_unavailable");
  });
});
