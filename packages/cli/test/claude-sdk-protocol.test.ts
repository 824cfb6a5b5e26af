// The control protocol's failure cases, driven line by line as a client program would: every
// permission question without a usable answer is a denial, and nothing waits forever.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  buggyProject,
  CLI_PATH,
  cleanEnv,
  requireBuiltCli,
  type ScriptedModel,
  startScriptedModel,
} from "../src/testing/index.js";

let model: ScriptedModel;
let dir: { root: string; project: string; remove: () => Promise<void> };

beforeAll(async () => {
  requireBuiltCli();
  model = await startScriptedModel("anthropic", []);
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  dir = await buggyProject();
});
afterEach(async () => {
  await dir.remove();
});

type Line = { type: string; request_id?: string; request?: Record<string, unknown>; [key: string]: unknown };

/**
 * Runs attractor as the SDK starts it, sends one user message, and lets `answer` reply to each
 * control request attractor sends (a line to write, "close" to close stdin, or nothing).
 */
async function drive(
  answer: (request: Line, write: (line: unknown) => void) => "close" | undefined,
  extraArgs: readonly string[] = [],
): Promise<{ code: number | null; lines: Line[]; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      CLI_PATH,
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
      ...extraArgs,
    ],
    { cwd: dir.project, env: cleanEnv(dir.root, model.env()) },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const write = (line: unknown) => child.stdin.write(`${JSON.stringify(line)}\n`);
  const lines: Line[] = [];
  const reader = createInterface({ input: child.stdout });
  reader.on("line", (raw) => {
    const line = JSON.parse(raw) as Line;
    lines.push(line);
    if (line.type === "control_request" && answer(line, write) === "close") child.stdin.end();
    // One message: once its result is out, the client is done.
    if (line.type === "result") child.stdin.end();
  });
  write({ type: "user", message: { role: "user", content: "go" } });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  return { code, lines, stderr };
}

const toolResult = (lines: readonly Line[]): { content: string; is_error: boolean } | undefined =>
  lines
    .filter((l) => l.type === "user")
    .flatMap(
      (l) => (l.message as { content: { type: string; content: string; is_error: boolean }[] }).content,
    )
    .find((b) => b.type === "tool_result");

const success = (request: Line, response: Record<string, unknown>) => ({
  type: "control_response",
  response: { subtype: "success", request_id: request.request_id, response },
});

describe("can_use_tool without a usable answer", () => {
  it("the client closing stdin while asked denies the call and ends the run cleanly", async () => {
    model.script([{ calls: [{ name: "shell", args: { command: "touch made.txt" } }] }, { text: "stopped" }]);
    const run = await drive(() => "close");
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir.project, "made.txt"))).toBe(false);
    expect(toolResult(run.lines)).toMatchObject({
      is_error: true,
      content: expect.stringContaining("closed its input"),
    });
  });

  it("a garbled answer, an error answer and invalid updatedInput are denials", async () => {
    model.script([
      { calls: [{ name: "shell", args: { command: "touch one.txt" } }] },
      { calls: [{ name: "shell", args: { command: "touch two.txt" } }] },
      { calls: [{ name: "shell", args: { command: "touch three.txt" } }] },
      { text: "done" },
    ]);
    let n = 0;
    const run = await drive((request, write) => {
      n++;
      if (n === 1) write(success(request, { behavior: "maybe" }));
      else if (n === 2)
        write({
          type: "control_response",
          response: { subtype: "error", request_id: request.request_id, error: "callback threw" },
        });
      else write(success(request, { behavior: "allow", updatedInput: { command: 42 } }));
      return undefined;
    });
    expect(run.code, run.stderr).toBe(0);
    for (const name of ["one.txt", "two.txt", "three.txt"])
      expect(existsSync(join(dir.project, name)), name).toBe(false);
    const results = run.lines
      .filter((l) => l.type === "user")
      .flatMap((l) => (l.message as { content: { content: string; is_error: boolean }[] }).content);
    expect(results.map((r) => r.is_error)).toEqual([true, true, true]);
    expect(results[0]?.content).toContain("gave no decision");
    expect(results[1]?.content).toContain("callback threw");
    expect(results[2]?.content).toMatch(/Invalid arguments/);
  });

  it("updatedInput is judged by the deny rules again", async () => {
    model.script([{ calls: [{ name: "shell", args: { command: "touch asked.txt" } }] }, { text: "done" }]);
    let asked = 0;
    const run = await drive(
      (request, write) => {
        asked++;
        write(success(request, { behavior: "allow", updatedInput: { command: "rm -rf src" } }));
        return undefined;
      },
      ["--permission-mode", "default", "--disallowedTools", "Bash(rm:*)"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(asked).toBe(1);
    expect(existsSync(join(dir.project, "src", "math.js"))).toBe(true);
    expect(toolResult(run.lines)).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/deny|denied/i),
    });
  });

  it("deny with interrupt: true stops the turn", async () => {
    model.script([
      { calls: [{ name: "shell", args: { command: "touch stop.txt" } }] },
      { text: "should not be asked for" },
    ]);
    const run = await drive((request, write) => {
      write(success(request, { behavior: "deny", message: "stop everything", interrupt: true }));
      return undefined;
    });
    expect(existsSync(join(dir.project, "stop.txt"))).toBe(false);
    expect(toolResult(run.lines)).toMatchObject({
      is_error: true,
      content: expect.stringContaining("stop everything"),
    });
    expect(run.lines.find((l) => l.type === "result")).toMatchObject({ is_error: true });
  });
});
