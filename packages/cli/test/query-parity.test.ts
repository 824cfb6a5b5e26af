// The same bug fix run through the command's headless mode and through query(), against the same
// scripted wire server: the library and the CLI must give the same files, calls and cost.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { query, type SDKMessage, type SDKResultMessage } from "@attractor/runtime";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  BUGGY_LINE,
  buggyProject,
  cleanEnv,
  editCall,
  FIXED_LINE,
  FIXED_MATH,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  type Step,
  startScriptedModel,
} from "../src/testing/index.js";

const FINAL = "Fixed add() in src/math.js; node test.js passes.";
const TASK = "Fix the failing test in this project.";
const ALLOW_TEST = "shell(node test.js)";

const fixScript = (): Step[] => [
  { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
  {
    expect: (r) => (r.at(-1)?.includes("return a - b") ? undefined : `read_file gave ${r.at(-1)}`),
    calls: [editCall("anthropic", "src/math.js", BUGGY_LINE, FIXED_LINE)],
  },
  {
    expect: (r) => (/error|denied/i.test(r.at(-1) ?? "") ? `edit failed: ${r.at(-1)}` : undefined),
    calls: [{ name: "shell", args: { command: "node test.js" } }],
  },
  {
    expect: (r) => (r.at(-1)?.includes("PASS: add(2, 3) = 5") ? undefined : `test run gave ${r.at(-1)}`),
    text: FINAL,
  },
];

/** The tool calls of a Claude-shaped message stream, in order: name and input. */
function toolCalls(messages: readonly { type: string; message?: { content?: unknown } }[]) {
  return messages.flatMap((m) =>
    m.type === "assistant"
      ? ((m.message?.content ?? []) as { type: string; name?: string; input?: unknown }[])
          .filter((b) => b.type === "tool_use")
          .map((b) => ({ name: b.name, input: b.input }))
      : [],
  );
}

let model: ScriptedModel | undefined;
const removals: (() => Promise<void>)[] = [];
afterEach(async () => {
  await model?.close();
  for (const remove of removals.splice(0)) await remove();
});
beforeAll(() => {
  requireBuiltCli();
});

describe("query() and the CLI's headless mode run the same task the same way", () => {
  it("the fix-bug task: same final files, same tool-call sequence, same result figures and cost", async () => {
    model = await startScriptedModel("anthropic", fixScript());

    const cliRun = await buggyProject();
    removals.push(cliRun.remove);
    const cli = await runCliProcess(
      ["-p", TASK, "--output-format", "stream-json", "--mode", "auto-edit", "--allowedTools", ALLOW_TEST],
      { cwd: cliRun.project, env: cleanEnv(cliRun.root, model.env()) },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const cliMessages = cli.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as SDKMessage);
    const cliResult = cliMessages.at(-1) as SDKResultMessage;

    model.script(fixScript());
    const libRun = await buggyProject();
    removals.push(libRun.remove);
    const libMessages: SDKMessage[] = [];
    for await (const m of query({
      prompt: TASK,
      options: {
        cwd: libRun.project,
        env: cleanEnv(libRun.root, model.env()),
        permissionMode: "acceptEdits",
        allowedTools: [ALLOW_TEST],
      },
    }))
      libMessages.push(m);
    const libResult = libMessages.at(-1) as SDKResultMessage;

    for (const [name, run] of [
      ["cli", cliRun],
      ["query", libRun],
    ] as const)
      expect(await readFile(join(run.project, "src", "math.js"), "utf8"), name).toBe(FIXED_MATH);
    const calls = toolCalls(libMessages as never);
    expect(calls.map((c) => c.name)).toEqual(["read_file", "edit_file", "shell"]);
    expect(toolCalls(cliMessages as never)).toEqual(calls);
    expect(libMessages.map((m) => m.type)).toEqual(cliMessages.map((m) => m.type));
    for (const result of [cliResult, libResult])
      expect(result).toMatchObject({
        type: "result",
        subtype: "success",
        result: FINAL,
        num_turns: 4,
        tool_calls: 3,
        permission_denials: [],
      });
    expect(libResult.total_cost_usd).toBeGreaterThan(0);
    expect(libResult.total_cost_usd).toBe(cliResult.total_cost_usd);
    expect(libResult.usage).toEqual(cliResult.usage);
    expect(libResult.model).toBe(cliResult.model);
  });
});
