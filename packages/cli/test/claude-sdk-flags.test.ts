import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_PATH, cleanEnv, type SeenRequest, type Step, startScriptedModel } from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";

const fx = headlessFixture();

describe("the flags the Claude Agent SDK passes", () => {
  it("are accepted: the run works, and those not honoured are named in one warning", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "hello from the model" }]);
    // As the SDK builds its command line (values joined with "=").
    const sdkFlags = [
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--max-thinking-tokens=2048",
      "--max-turns=3",
      "--permission-prompt-tool=stdio",
      "--setting-sources=",
      "--permission-mode=default",
      "--allow-dangerously-skip-permissions",
      "--include-partial-messages",
      "--allowedTools=Bash(npm test:*)",
      "--fork-session",
      "--no-session-persistence",
    ];
    const line = JSON.stringify({ type: "user", message: { role: "user", content: "hi" } });
    const result = await fx.run([...sdkFlags, ...fx.model.flags()], {}, `${line}\n`);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; result?: string });
    expect(events.find((e) => e.type === "result")).toMatchObject({ result: "hello from the model" });
    const warnings = result.stderr.split("\n").filter((l) => l.includes("not honoured (Claude Code flags)"));
    expect(warnings).toEqual([
      "attractor: accepted and not honoured (Claude Code flags): --max-thinking-tokens, --include-partial-messages, --fork-session, --no-session-persistence",
    ]);
  });

  it("--dangerously-skip-permissions is yolo mode", async () => {
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { expect: (r) => (/FAIL|PASS/.test(r.at(-1) ?? "") ? undefined : `not run: ${r.at(-1)}`), text: "ran" },
    ]);
    const result = await fx.run([
      "-p",
      "run the tests",
      "--dangerously-skip-permissions",
      ...fx.model.flags(),
    ]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
  });
});

describe("the stream-json control protocol", () => {
  it("answers initialize and set_permission_mode, refuses what it cannot do by name, runs the message", async () => {
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { expect: (r) => (/FAIL|PASS/.test(r.at(-1) ?? "") ? undefined : `not run: ${r.at(-1)}`), text: "ran" },
    ]);
    const lines = [
      { type: "control_request", request_id: "r1", request: { subtype: "initialize" } },
      {
        type: "control_request",
        request_id: "r2",
        request: { subtype: "initialize", hooks: { PreToolUse: [{ hookCallbackIds: ["h1"] }] } },
      },
      {
        type: "control_request",
        request_id: "r3",
        request: { subtype: "set_permission_mode", mode: "bypassPermissions" },
      },
      {
        type: "control_request",
        request_id: "r4",
        request: { subtype: "mcp_message", server_name: "x", message: {} },
      },
      { type: "user", message: { role: "user", content: "run the tests" } },
    ];
    const input = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
    const result = await fx.run(
      ["--output-format", "stream-json", "--input-format", "stream-json", ...fx.model.flags()],
      {},
      input,
    );
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            response?: { request_id: string; subtype: string; error?: string };
          },
      );
    const responses = new Map(
      out.filter((l) => l.type === "control_response").map((l) => [l.response?.request_id, l.response]),
    );
    expect(responses.get("r1")?.subtype).toBe("success");
    expect(responses.get("r2")).toMatchObject({
      subtype: "error",
      error: expect.stringContaining("hook callbacks"),
    });
    expect(responses.get("r3")?.subtype).toBe("success");
    expect(responses.get("r4")).toMatchObject({
      subtype: "error",
      error: expect.stringContaining("mcp_message"),
    });
    // The mode set over the protocol let the shell call run headless.
    expect(out.find((l) => l.type === "result")).toMatchObject({ result: "ran" });
  });
});

describe("interrupt over the control protocol", () => {
  it("stops a turn waiting on the model; the run then ends with stdin", async () => {
    fx.model = await startScriptedModel("anthropic", [{ raw: { kind: "hang" } }]);
    const child = spawn(
      process.execPath,
      [CLI_PATH, "--output-format", "stream-json", "--input-format", "stream-json", ...fx.model.flags()],
      { cwd: fx.project, env: cleanEnv(fx.root, fx.model.env()), stdio: ["pipe", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    const closed = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    const send = (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`);
    send({ type: "user", message: { role: "user", content: "take your time" } });
    while (fx.model.server.requests.length < 1) await new Promise((r) => setTimeout(r, 5));
    const sent = Date.now();
    send({ type: "control_request", request_id: "stop", request: { subtype: "interrupt" } });
    while (!stdout.includes('"type":"result"')) await new Promise((r) => setTimeout(r, 5));
    console.log(`interrupt to result: ${Date.now() - sent} ms`);
    child.stdin.end();
    await closed;
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; subtype?: string; response?: { request_id?: string } });
    expect(lines.find((l) => l.type === "control_response")?.response?.request_id).toBe("stop");
    expect(lines.find((l) => l.type === "result")?.subtype).not.toBe("success");
  });
});

describe("a headless run and its background subagents", () => {
  it("does not end while a subagent it started is still working", async () => {
    const reply = (r: SeenRequest): Step => {
      if (r.userTexts[0] === "child task")
        return r.toolResults.length === 0
          ? { calls: [{ name: "shell", args: { command: "sleep 1 && echo from-child > child.txt" } }] }
          : { text: "child done" };
      return r.toolResults.length === 0
        ? { calls: [{ name: "spawn_agent", args: { task: "child task" } }] }
        : { text: "parent done" };
    };
    fx.model = await startScriptedModel("anthropic", [
      { route: reply },
      { route: reply },
      { route: reply },
      { route: reply },
    ]);
    const result = await fx.run(["-p", "delegate", "--mode", "yolo", ...fx.model.flags()]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("parent done");
    expect(await readFile(join(fx.project, "child.txt"), "utf8")).toBe("from-child\n");
  });
});
