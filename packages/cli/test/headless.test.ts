import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defaultModel, estimateCost } from "@attractor/llm";
import { createCheckpointManager } from "@attractor/runtime/checkpoints";
import { describe, expect, it } from "vitest";
import type { HeadlessResult } from "../src/headless/index.js";
import {
  ALL_PROVIDERS,
  BUGGY_LINE,
  BUGGY_MATH,
  cleanEnv,
  editCall,
  FIXED_LINE,
  FIXED_MATH,
  MODEL,
  type Provider,
  runCliProcess,
  type Step,
  startCli,
  startScriptedModel,
} from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";

const fx = headlessFixture();

const FINAL = "Fixed add() in src/math.js: it subtracted instead of adding. node test.js passes now.";

/** The bug fix: read the file, edit it, run the test, answer; each step checks the last result. */
function fixScript(provider: Provider): Step[] {
  return [
    { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
    {
      expect: (r) => (r.at(-1)?.includes("return a - b") ? undefined : `read_file gave ${r.at(-1)}`),
      calls: [editCall(provider, "src/math.js", BUGGY_LINE, FIXED_LINE)],
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
}

const parseResult = (stdout: string): HeadlessResult => JSON.parse(stdout.trim()) as HeadlessResult;

describe("headless runs against each provider's wire protocol", () => {
  for (const provider of ALL_PROVIDERS) {
    it(`${provider}: fixes the bug (read, edit, shell) and prints the json result`, async () => {
      fx.model = await startScriptedModel(provider, fixScript(provider));
      // Shell commands need approval in normal and auto-edit modes; a project rule allows the test
      // (a project's allow rules apply once the project is trusted).
      await mkdir(join(fx.project, ".attractor"), { recursive: true });
      await writeFile(
        join(fx.project, ".attractor", "settings.json"),
        JSON.stringify({ permissions: { allow: ["shell(node test.js)"] } }),
      );
      const result = await fx.run([
        "-p",
        "Fix the failing test in this project.",
        "--output-format",
        "json",
        "--mode",
        "auto-edit",
        "--trust-project",
        ...fx.model.flags(),
      ]);
      expect(result.stderr).not.toContain("UNEXPECTED");
      expect(result.code, result.stderr).toBe(0);
      expect(await readFile(join(fx.project, "src", "math.js"), "utf8")).toBe(FIXED_MATH);

      const json = parseResult(result.stdout);
      expect(json).toMatchObject({
        type: "result",
        subtype: "success",
        is_error: false,
        exit_reason: "completed",
        result: FINAL,
        provider,
        model: MODEL[provider],
        num_turns: 4,
        tool_calls: 3,
        permission_denials: [],
      });
      expect(json.usage.input_tokens).toBe(4 * 120);
      expect(json.usage.output_tokens).toBe(4 * 30);
      expect(json.duration_ms).toBeGreaterThan(0);
      expect(json.duration_api_ms).toBeGreaterThan(0);
      expect(json.duration_api_ms).toBeLessThanOrEqual(json.duration_ms);
      if (provider === "openai-compatible") {
        expect(json.total_cost_usd).toBe(0);
        expect(json.cost_known).toBe(false);
      } else {
        const expected = estimateCost(MODEL[provider], {
          inputTokens: 480,
          outputTokens: 120,
          totalTokens: 600,
        });
        expect(json.total_cost_usd).toBeCloseTo(expected as number, 10);
        expect(json.cost_known).toBe(true);
        expect(defaultModel(provider)?.id).toBe(MODEL[provider]);
      }

      // Every request went to the chosen model; the transcript is stored under the session id.
      const seen = fx.model.seen();
      expect(seen).toHaveLength(4);
      expect(seen.every((r) => r.model === MODEL[provider])).toBe(true);
      expect(seen[0]?.userTexts).toContain("Fix the failing test in this project.");
      expect(seen[0]?.tools).toEqual(expect.arrayContaining(["read_file", "shell", "todo", "ask_user"]));
      const sessionsDir = join(fx.root, "attractor", "sessions");
      const [projectDir] = await readdir(sessionsDir);
      const transcript = await readFile(
        join(sessionsDir, projectDir as string, `${json.session_id}.jsonl`),
        "utf8",
      );
      const entries = transcript
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(entries.map((e) => e.turn?.kind ?? e.type)).toEqual([
        "session",
        "user",
        "assistant",
        "tool_results",
        "assistant",
        "tool_results",
        "assistant",
        "tool_results",
        "assistant",
      ]);
      expect(transcript).not.toContain("sk-ant-test");
      expect(transcript).not.toContain("gemini-test");
    });
  }
});

describe("checkpoints of a headless run", () => {
  it("an edit made just before the run ends is checkpointed: another process undoes it", async () => {
    // The edit is the last call and the answer follows at once, so the process ends while the
    // edit's whole-tree checkpoint may still be being written.
    fx.model = await startScriptedModel("openai", [
      { calls: [editCall("openai", "src/math.js", BUGGY_LINE, FIXED_LINE)] },
      { text: "Fixed." },
    ]);
    const result = await fx.run(["-p", "Fix add().", "--mode", "yolo", ...fx.model.flags()]);
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(fx.project, "src", "math.js"), "utf8")).toBe(FIXED_MATH);

    const later = await createCheckpointManager({
      projectRoot: fx.project,
      home: join(fx.root, "attractor"),
    });
    const undone = await later.undo();
    expect(undone?.files).toEqual([{ path: "src/math.js", change: "modified" }]);
    expect(await readFile(join(fx.project, "src", "math.js"), "utf8")).toBe(BUGGY_MATH);
  });
});

describe("headless exit codes and outputs", () => {
  it("prints the final answer alone on stdout in text mode, progress on stderr", async () => {
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { text: "add() subtracts: it returns a - b." },
    ]);
    const result = await fx.run(["-p", "What is wrong with add()?"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("add() subtracts: it returns a - b.\n");
    expect(result.stderr).toContain("· read_file src/math.js");
  });

  it("reads the task from stdin when it is not a terminal and no prompt is given", async () => {
    fx.model = await startScriptedModel("openai", [{ text: "Got it." }]);
    const result = await fx.run(["--output-format", "json"], {}, "Summarise this diff:\n+ a line\n");
    expect(result.code, result.stderr).toBe(0);
    expect(parseResult(result.stdout).result).toBe("Got it.");
    expect(fx.model.seen()[0]?.userTexts).toContain("Summarise this diff:\n+ a line");
  });

  it("--reasoning-effort reaches the provider request", async () => {
    fx.model = await startScriptedModel("openai", [{ text: "Thought hard." }]);
    const result = await fx.run(["-p", "Think", "--reasoning-effort", "high"]);
    expect(result.code, result.stderr).toBe(0);
    expect(fx.model.seen()[0]?.body.reasoning?.effort).toBe("high");
  });

  it("--tool-mode prompted describes the tools in the prompt and reads <tool_call> blocks from text", async () => {
    fx.model = await startScriptedModel("openai-compatible", [
      { text: '<tool_call>{"name": "read_file", "arguments": {"file_path": "src/math.js"}}</tool_call>' },
      { text: "It subtracts." },
    ]);
    const result = await fx.run([
      "-p",
      "Look at add()",
      "--tool-mode",
      "prompted",
      "--output-format",
      "json",
      ...fx.model.flags(),
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(parseResult(result.stdout)).toMatchObject({ result: "It subtracts.", tool_calls: 1 });
    const [first, second] = fx.model.seen();
    expect(first?.body.tools).toBeUndefined();
    expect(JSON.stringify(first?.body.messages[0])).toContain("<tool_call>");
    expect(second?.userTexts.join("\n")).toContain("return a - b");
  });

  it("events: one parseable event per line, bracketed by session_start and session_end, then the result", async () => {
    fx.model = await startScriptedModel("gemini", [
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { text: "It subtracts." },
    ]);
    const result = await fx.run(["-p", "Look at add()", "--output-format", "events"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const kinds = lines.map((l) => l.kind);
    expect(kinds[0]).toBe("session_start");
    expect(kinds.at(-2)).toBe("session_end");
    expect(lines.at(-1).type).toBe("result");
    for (const k of ["user_input", "assistant_text_start", "assistant_text_delta", "assistant_text_end"])
      expect(kinds).toContain(k);
    const start = lines.find((l) => l.kind === "tool_call_start");
    expect(start.data).toMatchObject({ toolName: "read_file", arguments: { file_path: "src/math.js" } });
    const end = lines.find((l) => l.kind === "tool_call_end");
    expect(end.data.output).toContain("return a - b");
    expect(lines.every((l) => l.type === "result" || typeof l.sessionId === "string")).toBe(true);
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      subtype: "success",
      result: "It subtracts.",
      num_turns: 2,
    });
    expect(lines.at(-1).session_id).toBe(lines[0].sessionId);
  });

  it("normal mode denies a shell call headless with a message the model can act on", async () => {
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      {
        expect: (r) => (r.at(-1)?.includes("no user is present") ? undefined : `no denial: ${r.at(-1)}`),
        text: "I could not run the tests: running commands needs approval.",
      },
    ]);
    const result = await fx.run(["-p", "Run the tests", "--output-format", "json"]);
    expect(result.code, result.stderr).toBe(0);
    const json = parseResult(result.stdout);
    expect(json.result).toBe("I could not run the tests: running commands needs approval.");
    expect(json.permission_denials).toHaveLength(1);
    expect(json.permission_denials[0]).toMatchObject({
      tool_name: "shell",
      tool_input: { command: "node test.js" },
    });
    expect(json.permission_denials[0]?.tool_use_id).toMatch(/./);
    const denial = fx.model.seen()[1]?.toolResults[0] ?? "";
    expect(denial).toMatch(/^Permission denied: shell needs approval/);
    expect(denial).toContain("--mode");
    expect(denial).toContain("shell(node test.js)");
  });

  it("ask_user tells the model that no user is present", async () => {
    fx.model = await startScriptedModel("openai", [
      { calls: [{ name: "ask_user", args: { question: "Which file?", options: ["a", "b"] } }] },
      { text: "Assumed a." },
    ]);
    const result = await fx.run(["-p", "Do it", "--output-format", "json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(fx.model.seen()[1]?.toolResults[0]).toContain("No user is present");
  });

  it("exits 1 with an error result when the provider keeps failing with 500", async () => {
    const failure: Step = {
      raw: {
        kind: "json",
        status: 500,
        headers: { "retry-after": "0" },
        body: { type: "error", error: { type: "api_error", message: "Internal server error" } },
      },
    };
    fx.model = await startScriptedModel("anthropic", [failure, failure, failure, failure, failure]);
    const result = await fx.run(["-p", "Fix it", "--output-format", "json"]);
    expect(result.code).toBe(1);
    const json = parseResult(result.stdout);
    expect(json).toMatchObject({ is_error: true, exit_reason: "error", subtype: "error_during_execution" });
    expect(json.error).toMatchObject({ status_code: 500 });
    expect(fx.model.seen()).toHaveLength(5); // the first attempt and four retries
    expect(result.stderr).toContain("error:");
  });

  it("exits 1 when the turn limit stops the task", async () => {
    fx.model = await startScriptedModel("openai-compatible", fixScript("openai-compatible"));
    const result = await fx.run([
      "-p",
      "Fix it",
      "--max-turns",
      "2",
      "--mode",
      "yolo",
      "--output-format",
      "json",
      ...fx.model.flags(),
    ]);
    expect(result.code).toBe(1);
    expect(parseResult(result.stdout)).toMatchObject({
      subtype: "error_max_turns",
      exit_reason: "turn_limit",
      num_turns: 2,
    });
    expect(fx.model.seen()).toHaveLength(2);
  });
});

describe("where and how long a headless run works", () => {
  it("works in --cwd, or under npm start in the directory npm was started from", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "a" }, { text: "b" }]);
    const workingDir = async (args: string[], env: Record<string, string>) => {
      const result = await runCliProcess([...args, "-p", "where?", "--output-format", "stream-json"], {
        cwd: fx.root,
        env: cleanEnv(fx.root, { ...fx.model?.env(), ...env }),
      });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout.split("\n")[0] as string).cwd;
    };
    expect(await workingDir(["--cwd", "project"], {})).toBe(fx.project);
    expect(await workingDir([], { npm_lifecycle_event: "start", INIT_CWD: fx.project })).toBe(fx.project);
    const missing = await fx.run(["-p", "x", "--cwd", join(fx.root, "nowhere")], { ANTHROPIC_API_KEY: "k" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("does not exist");
  });

  it("SIGINT stops the task, stores it, prints the result and exits 130", async () => {
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { raw: { kind: "hang" } },
    ]);
    const started = startCli(["-p", "Take your time", "--output-format", "json"], {
      cwd: fx.project,
      env: cleanEnv(fx.root, fx.model.env()),
    });
    while (fx.model.server.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
    started.child.kill("SIGINT");
    const result = await started.done;
    expect(result.code).toBe(130);
    const json = parseResult(result.stdout);
    expect(json).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      exit_reason: "aborted",
      num_turns: 1,
    });
    const sessionsDir = join(fx.root, "attractor", "sessions");
    const [dir] = await readdir(sessionsDir);
    const stored = await readFile(join(sessionsDir, dir as string, `${json.session_id}.jsonl`), "utf8");
    expect(stored).toContain('"kind":"tool_results"');
  });
});

describe("bad usage and configuration exit 2 before anything runs", () => {
  const bad = async (args: string[], env: Record<string, string> = {}) => {
    const result = await fx.run(args, env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    return result.stderr;
  };

  it("names every key variable and the local-server option when no provider is configured", async () => {
    const stderr = await bad(["-p", "hello"]);
    for (const name of [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "GOOGLE_API_KEY",
      "OPENAI_COMPATIBLE_BASE_URL",
    ])
      expect(stderr).toContain(name);
    expect(stderr).toContain("--provider openai-compatible");
    await expect(readdir(join(fx.root, "attractor"))).rejects.toThrow();
  });

  it("rejects unknown flags, bad choices and bad numbers with the reason", async () => {
    expect(await bad(["--frobnicate"])).toContain("unknown option '--frobnicate'");
    expect(await bad(["-p", "x", "--mode", "reckless"])).toContain(
      "Allowed choices are plan, normal, auto-edit, yolo",
    );
    expect(await bad(["-p", "x", "--max-turns", "0"])).toContain("expected a whole number of at least 1");
    expect(await bad(["-p", "x", "--output-format", "xml"])).toContain(
      "Allowed choices are text, json, stream-json, events",
    );
    expect(await bad(["-p", "x", "--continue", "--resume", "abc"])).toContain("cannot be used with");
  });

  it("needs a task in headless mode", async () => {
    expect(await bad(["-p"])).toContain("headless mode (-p) needs a task");
  });

  it("names the missing key of an explicitly chosen provider", async () => {
    expect(await bad(["-p", "x", "--provider", "openai"], { ANTHROPIC_API_KEY: "k" })).toContain(
      "set OPENAI_API_KEY",
    );
    expect(await bad(["-p", "x", "--provider", "openai-compatible"])).toContain("--base-url");
  });

  it("reports an invalid settings file with its path and position", async () => {
    await mkdir(join(fx.project, ".attractor"), { recursive: true });
    await writeFile(join(fx.project, ".attractor", "settings.json"), '{\n  "mode": "fast"\n}\n');
    const stderr = await bad(["-p", "x"], { ANTHROPIC_API_KEY: "k" });
    expect(stderr).toContain(join(fx.project, ".attractor", "settings.json"));
    expect(stderr).toContain("/mode");
  });

  it("--continue without a stored session says so", async () => {
    expect(await bad(["-p", "x", "--continue"], { ANTHROPIC_API_KEY: "k" })).toContain(
      "No stored session to continue",
    );
  });

  it("prints the version and the help with exit 0", async () => {
    const version = await fx.run(["--version"]);
    expect(version.code).toBe(0);
    const pkg = JSON.parse(await readFile(join(__dirname, "..", "package.json"), "utf8"));
    expect(version.stdout.trim()).toBe(pkg.version);
    const help = await fx.run(["--help"]);
    expect(help.code).toBe(0);
    for (const flag of [
      "--provider",
      "--model",
      "--mode",
      "--output-format",
      "--max-turns",
      "--reasoning-effort",
      "--continue",
      "--resume",
      "--cwd",
      "--base-url",
    ])
      expect(help.stdout).toContain(flag);
  });
});
