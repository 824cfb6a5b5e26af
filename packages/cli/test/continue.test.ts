import { appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HeadlessResult } from "../src/headless/index.js";
import {
  buggyProject,
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  startCli,
  startScriptedModel,
} from "../src/testing/index.js";

beforeAll(() => {
  requireBuiltCli();
});

let root: string;
let project: string;
let remove: () => Promise<void>;
let model: ScriptedModel;

beforeEach(async () => {
  ({ root, project, remove } = await buggyProject());
  model = await startScriptedModel("anthropic");
});
afterEach(async () => {
  await model.close();
  await remove();
});

const env = () => cleanEnv(root, model.env());

async function transcriptPath(): Promise<string> {
  const dir = join(root, "attractor", "sessions");
  const [projectDir] = await readdir(dir);
  const [file] = await readdir(join(dir, projectDir as string));
  return join(dir, projectDir as string, file as string);
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

describe("sessions survive kill -9 and continue", () => {
  it("after kill -9 during a model request, --continue sends every completed turn", async () => {
    model.script([
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { raw: { kind: "hang" } },
    ]);
    const first = startCli(["-p", "Fix the failing test", "--mode", "yolo"], { cwd: project, env: env() });
    await waitFor(() => model.server.requests.length === 3);
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");

    model.script([{ text: "Carrying on from where I was." }]);
    const second = await runCliProcess(
      ["-p", "Go on", "--continue", "--mode", "yolo", "--output-format", "json"],
      {
        cwd: project,
        env: env(),
      },
    );
    expect(second.code, second.stderr).toBe(0);
    const resumed = model.seen().at(-1);
    expect(resumed?.userTexts).toEqual(["Fix the failing test", "Go on"]);
    expect(resumed?.toolResults).toHaveLength(2);
    expect(resumed?.toolResults[0]).toContain("return a - b");
    expect(resumed?.toolResults[1]).toContain("FAIL: add(2, 3) returned -1");
    // Both assistant turns with their tool calls are part of the conversation sent.
    const assistant = resumed?.body.messages.filter((m: { role: string }) => m.role === "assistant");
    expect(assistant).toHaveLength(2);

    const result = JSON.parse(second.stdout) as HeadlessResult;
    const lines = (await readFile(await transcriptPath(), "utf8")).trim().split("\n");
    const header = JSON.parse(lines[0] as string);
    expect(result.session_id).toBe(header.sessionId);
    expect(lines.map((l) => JSON.parse(l).turn?.kind ?? "session")).toEqual([
      "session",
      "user",
      "assistant",
      "tool_results",
      "assistant",
      "tool_results",
      "user",
      "assistant",
    ]);
  });

  it("after kill -9 during a tool call, --continue gives the cut-off call an error result", async () => {
    model.script([{ calls: [{ name: "shell", args: { command: "sleep 3", timeout_ms: 10000 } }] }]);
    const first = startCli(["-p", "Wait a bit", "--mode", "yolo"], { cwd: project, env: env() });
    // The assistant turn asking for the call is stored before the command runs.
    await waitFor(() => model.server.requests.length === 1);
    let text = "";
    while (!text.includes('"sleep 3"')) {
      text = await transcriptPath()
        .then((p) => readFile(p, "utf8"))
        .catch(() => "");
      await new Promise((r) => setTimeout(r, 5));
    }
    first.child.kill("SIGKILL");
    await first.done;

    model.script([{ text: "The wait was interrupted." }]);
    const second = await runCliProcess(["-p", "What happened?", "--continue"], { cwd: project, env: env() });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("interrupted by the end of the previous run");
    const resumed = model.seen().at(-1);
    expect(resumed?.toolResults).toHaveLength(1);
    expect(resumed?.toolResults[0]).toContain("interrupted before it finished");
  });

  it("skips a truncated last line with a warning and goes on", async () => {
    model.script([{ text: "First answer." }]);
    const first = await runCliProcess(["-p", "Hello"], { cwd: project, env: env() });
    expect(first.code, first.stderr).toBe(0);
    await appendFile(await transcriptPath(), '{"id":"x","parentId":null,"type":"turn","turn":{"kind":"us');

    model.script([{ text: "Second answer." }]);
    const second = await runCliProcess(["-p", "Again", "--continue"], { cwd: project, env: env() });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe("Second answer.\n");
    expect(second.stderr).toMatch(/warning: .*truncated or corrupt; skipped/);
    expect(model.seen().at(-1)?.userTexts).toEqual(["Hello", "Again"]);
    const kinds = (await readFile(await transcriptPath(), "utf8"))
      .trim()
      .split("\n")
      .flatMap((l) => {
        try {
          return [JSON.parse(l).turn?.kind ?? "session"];
        } catch {
          return ["corrupt"];
        }
      });
    expect(kinds).toEqual(["session", "user", "assistant", "corrupt", "user", "assistant"]);
  });

  it("--resume ID continues that session; an unknown id exits 2", async () => {
    model.script([{ text: "One." }]);
    const first = await runCliProcess(["-p", "First task", "--output-format", "json"], {
      cwd: project,
      env: env(),
    });
    const id = (JSON.parse(first.stdout) as HeadlessResult).session_id;
    model.script([{ text: "Two." }]);
    await runCliProcess(["-p", "Another task"], { cwd: project, env: env() });

    model.script([{ text: "Back to the first." }]);
    const resumed = await runCliProcess(["-p", "And now?", "--resume", id, "--output-format", "json"], {
      cwd: project,
      env: env(),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((JSON.parse(resumed.stdout) as HeadlessResult).session_id).toBe(id);
    expect(model.seen().at(-1)?.userTexts).toEqual(["First task", "And now?"]);

    const unknown = await runCliProcess(["-p", "x", "--resume", "nope"], { cwd: project, env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No stored session "nope"');
    const listing = await runCliProcess(["-p", "x", "--resume"], { cwd: project, env: env() });
    expect(listing.code).toBe(2);
    expect(listing.stderr).toContain(id);
  });
});
