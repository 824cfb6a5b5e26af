import { appendFile, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HeadlessResult } from "../src/headless/index.js";
import {
  anthropicRawCall,
  buggyProject,
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  type Step,
  startScriptedModel,
} from "../src/testing/index.js";

let model: ScriptedModel;
let root: string;
let project: string;

beforeAll(async () => {
  requireBuiltCli();
  model = await startScriptedModel("anthropic");
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  const made = await buggyProject();
  ({ root, project } = made);
  return made.remove;
});

const run = (steps: Step[], args: string[]) => {
  model.script(steps);
  return runCliProcess(["-p", ...args, "--output-format", "json"], {
    cwd: project,
    env: cleanEnv(root, model.env()),
  });
};
const resultOf = (stdout: string) => JSON.parse(stdout.trim()) as HeadlessResult;

async function transcriptFile(): Promise<string> {
  const sessions = join(root, "attractor", "sessions");
  const [dir] = await readdir(sessions);
  const [file] = await readdir(join(sessions, dir as string));
  return join(sessions, dir as string, file as string);
}

describe("robustness rows, tried through the command line", () => {
  it("tool arguments nested 5000 deep get an error result; the run and --continue go on", async () => {
    const deep = `{"file_path":"src/math.js","extra":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}`;
    const first = await run([{ raw: anthropicRawCall("read_file", deep) }, { text: "handled" }], ["go"]);
    expect(first.code, first.stderr).toBe(0);
    expect(resultOf(first.stdout).result).toBe("handled");
    expect(model.seen().at(-1)?.toolResults.at(-1)).toMatch(/nested more than 100 levels deep/);
    const next = await run([{ text: "still here" }], ["-c", "go on"]);
    expect(next.code, next.stderr).toBe(0);
    expect(resultOf(next.stdout).result).toBe("still here");
  });

  it("a transcript entry of an unknown kind is skipped with a warning on --continue", async () => {
    const first = await run([{ text: "first answer" }], ["hello"]);
    expect(first.code, first.stderr).toBe(0);
    const file = await transcriptFile();
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    const last = JSON.parse(lines.at(-1) as string) as { id: string };
    const now = new Date().toISOString();
    await appendFile(
      file,
      `${JSON.stringify({ id: "x1", parentId: last.id, type: "turn", timestamp: now, turn: { kind: "hologram", content: "?", timestamp: now } })}\n${JSON.stringify({ id: "x2", parentId: "x1", type: "telemetry", timestamp: now, payload: 1 })}\n`,
    );
    const next = await run([{ text: "continued" }], ["-c", "and now?"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/unknown kind "hologram".*skipped/);
    expect(resultOf(next.stdout).result).toBe("continued");
    // The model saw the earlier conversation, without the unknown turn.
    const body = JSON.stringify(model.seen().at(-1)?.body);
    expect(body).toContain("first answer");
    expect(body).not.toContain("hologram");
  });

  it("a 5 MB write_file is stored once, and comes back whole on --continue", async () => {
    const content = `${"0123456789abcdef".repeat(5 * 65536)}\n`;
    const first = await run(
      [{ calls: [{ name: "write_file", args: { file_path: "big.txt", content } }] }, { text: "written" }],
      ["write it", "--mode", "auto-edit"],
    );
    expect(first.code, first.stderr).toBe(0);
    expect((await stat(join(project, "big.txt"))).size).toBe(content.length);
    const size = (await stat(await transcriptFile())).size;
    expect(size).toBeGreaterThan(content.length);
    expect(size).toBeLessThan(content.length * 1.2);
    const next = await run([{ text: "ok" }], ["-c", "check"]);
    expect(next.code, next.stderr).toBe(0);
    const replayed = JSON.stringify(model.seen().at(-1)?.body);
    expect(replayed).toContain(content.slice(0, -1));
  });

  it("a model replaying the same steps is stopped with an error: exit 1", async () => {
    const same: Step = { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] };
    const result = await run(Array<Step>(60).fill(same), ["loop"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: Stopped: the model kept repeating the same tool calls/);
    expect(resultOf(result.stdout)).toMatchObject({ is_error: true });
    expect(model.seen().length).toBeLessThan(40);
  });
});
