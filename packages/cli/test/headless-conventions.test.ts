// Headless runs as scripts written for Claude Code drive them: its message stream read by a
// consumer typed from Claude Code's documented schema, stream-json input, piped stdin beside a
// prompt, and the flags and environment variables users already type.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ALL_PROVIDERS,
  BUGGY_MATH,
  cleanEnv,
  editCall,
  type Provider,
  runCliProcess,
  startScriptedModel,
} from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";

const fx = headlessFixture();

/** Runs the command with the model's own flags (a compatible server's model name). */
const run = (args: string[], extraEnv: Record<string, string> = {}, input?: string) =>
  fx.run([...args, ...(fx.model?.flags() ?? [])], extraEnv, input);

// ---- A consumer of Claude Code's stream-json, typed from its documented message schema ----

type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string | unknown[]; is_error?: boolean };

type Message =
  | {
      type: "system";
      subtype: "init";
      session_id: string;
      cwd: string;
      tools: string[];
      model: string;
      permissionMode: "default" | "acceptEdits" | "bypassPermissions" | "plan";
      mcp_servers: { name: string; status: string }[];
      apiKeySource: string;
    }
  | {
      type: "assistant";
      session_id: string;
      parent_tool_use_id: string | null;
      message: {
        id: string;
        role: "assistant";
        model: string;
        content: Block[];
        stop_reason: string | null;
        usage: { input_tokens: number; output_tokens: number };
      };
    }
  | {
      type: "user";
      session_id: string;
      parent_tool_use_id: string | null;
      message: { role: "user"; content: string | Block[] };
    }
  | {
      type: "result";
      subtype: "success" | "error_max_turns" | "error_during_execution";
      is_error: boolean;
      duration_ms: number;
      duration_api_ms: number;
      num_turns: number;
      result: string;
      session_id: string;
      total_cost_usd: number;
      usage: {
        input_tokens: number;
        output_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
      };
      permission_denials: { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> }[];
    };

const isString = (v: unknown): v is string => typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Checks one block against the schema; throws naming what is wrong. */
function checkBlock(b: Record<string, unknown>, where: string): void {
  switch (b.type) {
    case "text":
      if (!isString(b.text)) throw new Error(`${where}: text block without text`);
      return;
    case "thinking":
      if (!isString(b.thinking)) throw new Error(`${where}: thinking block without thinking`);
      return;
    case "tool_use":
      if (!isString(b.id) || !isString(b.name) || typeof b.input !== "object" || b.input === null)
        throw new Error(`${where}: malformed tool_use block`);
      return;
    case "tool_result":
      if (!isString(b.tool_use_id) || !(isString(b.content) || Array.isArray(b.content)))
        throw new Error(`${where}: malformed tool_result block`);
      return;
    default:
      throw new Error(`${where}: unknown content block type ${String(b.type)}`);
  }
}

/**
 * Parses stream-json output as a Claude Code consumer does: every line one JSON object, known
 * types validated field by field, unknown types skipped.
 */
function parseClaudeStream(stdout: string): Message[] {
  const messages: Message[] = [];
  for (const [i, line] of stdout.trim().split("\n").entries()) {
    const m = JSON.parse(line) as Record<string, unknown>;
    const where = `line ${i + 1} (${String(m.type)})`;
    switch (m.type) {
      case "system":
        if (m.subtype !== "init") continue;
        if (!isString(m.session_id) || !isString(m.cwd) || !isString(m.model) || !isString(m.apiKeySource))
          throw new Error(`${where}: missing init fields`);
        if (!Array.isArray(m.tools) || !m.tools.every(isString)) throw new Error(`${where}: tools`);
        if (!["default", "acceptEdits", "bypassPermissions", "plan"].includes(m.permissionMode as string))
          throw new Error(`${where}: permissionMode ${String(m.permissionMode)}`);
        if (!Array.isArray(m.mcp_servers)) throw new Error(`${where}: mcp_servers`);
        break;
      case "assistant": {
        const msg = m.message as Record<string, unknown>;
        if (!isString(m.session_id) || m.parent_tool_use_id === undefined)
          throw new Error(`${where}: envelope`);
        if (msg.role !== "assistant" || !isString(msg.id) || !isString(msg.model))
          throw new Error(`${where}: message`);
        const usage = msg.usage as Record<string, unknown>;
        if (!isNumber(usage?.input_tokens) || !isNumber(usage?.output_tokens))
          throw new Error(`${where}: usage`);
        for (const b of msg.content as Record<string, unknown>[]) checkBlock(b, where);
        break;
      }
      case "user": {
        const msg = m.message as Record<string, unknown>;
        if (!isString(m.session_id) || msg.role !== "user") throw new Error(`${where}: envelope`);
        if (Array.isArray(msg.content))
          for (const b of msg.content as Record<string, unknown>[]) checkBlock(b, where);
        else if (!isString(msg.content)) throw new Error(`${where}: content`);
        break;
      }
      case "result": {
        if (!["success", "error_max_turns", "error_during_execution"].includes(m.subtype as string))
          throw new Error(`${where}: subtype ${String(m.subtype)}`);
        for (const k of ["duration_ms", "duration_api_ms", "num_turns", "total_cost_usd"])
          if (!isNumber(m[k])) throw new Error(`${where}: ${k}`);
        if (typeof m.is_error !== "boolean" || !isString(m.result) || !isString(m.session_id))
          throw new Error(`${where}: result fields`);
        const usage = m.usage as Record<string, unknown>;
        for (const k of [
          "input_tokens",
          "output_tokens",
          "cache_read_input_tokens",
          "cache_creation_input_tokens",
        ])
          if (!isNumber(usage?.[k])) throw new Error(`${where}: usage.${k}`);
        if (!Array.isArray(m.permission_denials)) throw new Error(`${where}: permission_denials`);
        break;
      }
      default:
        continue;
    }
    messages.push(m as unknown as Message);
  }
  return messages;
}

describe("--output-format stream-json speaks Claude Code's message stream", () => {
  it.each(ALL_PROVIDERS)(
    "%s: init, assistant turns with tool_use, tool results, result",
    async (provider) => {
      fx.model = await startScriptedModel(provider, [
        {
          calls: [
            { name: "read_file", args: { file_path: "src/math.js" } },
            { name: "grep", args: { pattern: "module.exports" } },
          ],
        },
        { text: "add() subtracts." },
      ]);
      const result = await run(["-p", "Look at add()", "--output-format", "stream-json"]);
      expect(result.code, result.stderr).toBe(0);
      const messages = parseClaudeStream(result.stdout);
      expect(messages.map((m) => m.type)).toEqual([
        "system",
        "assistant",
        "user",
        "user",
        "assistant",
        "result",
      ]);

      const init = messages[0] as Extract<Message, { type: "system" }>;
      expect(init.cwd).toBe(fx.project);
      expect(init.tools).toContain("read_file");
      expect(init.permissionMode).toBe("default");
      const sessionId = init.session_id;
      expect(messages.every((m) => m.session_id === sessionId)).toBe(true);

      const first = messages[1] as Extract<Message, { type: "assistant" }>;
      const uses = first.message.content.filter((b) => b.type === "tool_use");
      expect(uses.map((u) => u.type === "tool_use" && [u.name, u.input])).toEqual([
        ["read_file", { file_path: "src/math.js" }],
        ["grep", { pattern: "module.exports" }],
      ]);
      expect(first.message.stop_reason).toBe("tool_use");
      // Each tool result answers a tool_use of the message before it (parallel calls finish in any order).
      const results = messages
        .filter((m): m is Extract<Message, { type: "user" }> => m.type === "user")
        .flatMap((m) => m.message.content as Extract<Block, { type: "tool_result" }>[]);
      const ids = uses.map((u) => (u.type === "tool_use" ? u.id : ""));
      expect(results.map((r) => r.tool_use_id).sort()).toEqual([...ids].sort());
      const readResult = results.find((r) => r.tool_use_id === ids[0]);
      expect(readResult?.content).toContain(BUGGY_MATH.split("\n")[1]);

      const answer = messages[4] as Extract<Message, { type: "assistant" }>;
      expect(answer.message.content).toEqual([{ type: "text", text: "add() subtracts." }]);
      expect(answer.message.stop_reason).toBe("end_turn");
      const final = messages[5] as Extract<Message, { type: "result" }>;
      expect(final).toMatchObject({
        subtype: "success",
        is_error: false,
        result: "add() subtracts.",
        num_turns: 2,
      });
      expect(final.usage.input_tokens).toBe(
        first.message.usage.input_tokens + answer.message.usage.input_tokens,
      );
    },
  );

  it("--attractor-events adds attractor's own events as a type the consumer skips", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "Short answer." }]);
    const result = await run(["-p", "hi", "--output-format", "stream-json", "--attractor-events"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const kinds = lines.filter((l) => l.type === "attractor_event").map((l) => l.event.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(["session_start", "assistant_text_delta", "processing_end"]),
    );
    expect(parseClaudeStream(result.stdout).map((m) => m.type)).toEqual(["system", "assistant", "result"]);
  });

  it("--verbose (which Claude Code's stream-json needs) prints only Claude Code's message types", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "Short answer." }]);
    const result = await run(["-p", "hi", "--output-format", "stream-json", "--verbose"]);
    expect(result.code, result.stderr).toBe(0);
    const types = result.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(["system", "assistant", "result"]);
  });

  it("a denied call shows as an error tool result and in permission_denials with its input", async () => {
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { text: "Could not run it." },
    ]);
    const result = await run(["-p", "run the tests", "--output-format", "stream-json"]);
    const messages = parseClaudeStream(result.stdout);
    const toolResult = messages
      .filter((m) => m.type === "user")
      .flatMap((m) => (m as Extract<Message, { type: "user" }>).message.content as Block[])[0];
    expect(toolResult).toMatchObject({ type: "tool_result", is_error: true });
    const final = messages.at(-1) as Extract<Message, { type: "result" }>;
    expect(final.permission_denials).toEqual([
      expect.objectContaining({ tool_name: "shell", tool_input: { command: "node test.js" } }),
    ]);
  });
});

describe("--input-format stream-json", () => {
  it("runs each user message from stdin in one session, a result per message; bad lines are reported and skipped", async () => {
    fx.model = await startScriptedModel("openai", [{ text: "First answer." }, { text: "Second answer." }]);
    const input = [
      JSON.stringify({ type: "user", message: { role: "user", content: "first question" } }),
      "{ not json",
      JSON.stringify({ type: "control_request", request: {} }),
      JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "text", text: "second question" }] },
      }),
      "",
    ].join("\n");
    const result = await run(
      ["-p", "--input-format", "stream-json", "--output-format", "stream-json"],
      {},
      input,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("stdin line 2: not JSON");
    expect(result.stderr).toContain('stdin line 3: type "control_request" is not "user"');
    const results = parseClaudeStream(result.stdout).filter((m) => m.type === "result");
    expect(results.map((r) => (r as Extract<Message, { type: "result" }>).result)).toEqual([
      "First answer.",
      "Second answer.",
    ]);
    // One conversation: the second request carries the first exchange.
    expect(fx.model.seen()[1]?.userTexts).toEqual(["first question", "second question"]);
  });

  it("needs -p and no prompt argument", async () => {
    fx.model = await startScriptedModel("anthropic", []);
    const withPrompt = await run(["-p", "--input-format", "stream-json", "question"], {}, "");
    expect(withPrompt.code).toBe(2);
    expect(withPrompt.stderr).toContain("drop the prompt argument");
  });
});

describe("piped stdin with a prompt argument", () => {
  it("sends the argument, then the piped text in a fenced block", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "Reviewed." }]);
    const piped = "diff --git a/x b/x\n+```js\n+code\n+```\n";
    const result = await run(["-p", "Review this diff"], {}, piped);
    expect(result.code, result.stderr).toBe(0);
    expect(fx.model.seen()[0]?.userTexts).toEqual([
      "Review this diff\n\n````\ndiff --git a/x b/x\n+```js\n+code\n+```\n````",
    ]);
  });
});

describe("the flags people already type", () => {
  it("--allowedTools allows a command headless; --disallowedTools denies a read", async () => {
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { text: "done" },
    ]);
    const result = await run([
      "-p",
      "test",
      "--allowedTools",
      "Bash(node test.js)",
      "--disallowedTools",
      "Read",
      "--output-format",
      "json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [shellResult, readResult] = fx.model.seen()[2]?.toolResults ?? [];
    expect(shellResult).toContain("FAIL");
    expect(readResult).toMatch(/^Permission denied/);
  });

  it("--permission-mode takes Claude Code's names; settings' permissions.defaultMode too", async () => {
    const fix = () => [
      { calls: [editCall("anthropic" as Provider, "src/math.js", "  return a - b;", "  return a + b;")] },
      { text: "fixed" },
    ];
    fx.model = await startScriptedModel("anthropic", fix());
    const flag = await run(["-p", "fix", "--permission-mode", "acceptEdits", "--output-format", "json"]);
    expect(JSON.parse(flag.stdout).permission_denials).toEqual([]);
    expect(await readFile(join(fx.project, "src", "math.js"), "utf8")).toContain("a + b");

    await writeFile(join(fx.project, "src", "math.js"), BUGGY_MATH);
    await mkdir(join(fx.project, ".attractor"), { recursive: true });
    await writeFile(
      join(fx.project, ".attractor", "settings.json"),
      JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }),
    );
    fx.model.script(fix());
    // A project's mode wider than normal applies once the project is trusted.
    const settings = await run(["-p", "fix", "--output-format", "json", "--trust-project"]);
    expect(JSON.parse(settings.stdout).permission_denials).toEqual([]);
    expect(await readFile(join(fx.project, "src", "math.js"), "utf8")).toContain("a + b");
  });

  it("--append-system-prompt adds to the system prompt; --system-prompt replaces the agent's own part", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "a" }, { text: "b" }]);
    await run(["-p", "x", "--append-system-prompt", "Always answer in French."]);
    const appended = JSON.stringify(fx.model.seen()[0]?.body.system);
    expect(appended).toContain("Always answer in French.");
    expect(appended).toContain("You are an interactive coding agent");
    await run(["-p", "x", "--system-prompt", "You are a terse release bot."]);
    const replaced = JSON.stringify(fx.model.seen()[1]?.body.system);
    expect(replaced).toContain("You are a terse release bot.");
    expect(replaced).not.toContain("You are an interactive coding agent");
    // The environment and tools layers stay.
    expect(replaced).toContain(fx.project);
  });

  it("--add-dir lets the tools work in another directory as in the project", async () => {
    const other = await mkdtemp(join(tmpdir(), "attractor-add-dir-"));
    try {
      const target = join(other, "notes.txt");
      const write = () => [
        { calls: [{ name: "write_file", args: { file_path: target, content: "hello\n" } }] },
        { text: "written" },
      ];
      fx.model = await startScriptedModel("anthropic", write());
      const without = await run([
        "-p",
        "write",
        "--permission-mode",
        "acceptEdits",
        "--output-format",
        "json",
      ]);
      expect(JSON.parse(without.stdout).permission_denials).toHaveLength(1);
      fx.model.script(write());
      const withDir = await run([
        "-p",
        "write",
        "--permission-mode",
        "acceptEdits",
        "--add-dir",
        other,
        "--output-format",
        "json",
      ]);
      expect(JSON.parse(withDir.stdout).permission_denials).toEqual([]);
      expect(await readFile(target, "utf8")).toBe("hello\n");
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it("a rule naming a tool attractor does not have is reported", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "ok" }]);
    const result = await run(["-p", "x", "--allowedTools", "ExitPlanMode,Bash(ls:*)"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("the permission rule ExitPlanMode names a tool this agent does not have");
    expect(result.stderr).not.toContain("Bash(ls:*)");
  });
});

describe("environment variables users set for other agents", () => {
  it("ANTHROPIC_AUTH_TOKEN authenticates with a bearer header; ANTHROPIC_MODEL picks the model", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "ok" }]);
    const { ANTHROPIC_BASE_URL } = fx.model.env() as { ANTHROPIC_BASE_URL: string };
    const result = await runCliProcess(["-p", "x"], {
      cwd: fx.project,
      env: cleanEnv(fx.root, {
        ANTHROPIC_BASE_URL,
        ANTHROPIC_AUTH_TOKEN: "gateway-token",
        ANTHROPIC_MODEL: "claude-haiku-4-5",
      }),
    });
    expect(result.code, result.stderr).toBe(0);
    const request = fx.model.server.requests[0];
    expect(request?.headers.authorization).toBe("Bearer gateway-token");
    expect(request?.headers["x-api-key"]).toBeUndefined();
    expect(request?.body.model).toBe("claude-haiku-4-5");
  });

  it("Claude Code's apiKeyHelper gives the Anthropic key; a project's waits for trust", async () => {
    fx.model = await startScriptedModel("anthropic", [{ text: "ok" }, { text: "ok" }]);
    const { ANTHROPIC_BASE_URL } = fx.model.env() as { ANTHROPIC_BASE_URL: string };
    const env = cleanEnv(fx.root, { ANTHROPIC_BASE_URL });
    await mkdir(join(fx.root, "user", ".claude"), { recursive: true });
    await writeFile(
      join(fx.root, "user", ".claude", "settings.json"),
      JSON.stringify({ apiKeyHelper: "printf 'sk-from-%s' helper" }),
    );
    const result = await runCliProcess(["-p", "x"], { cwd: fx.project, env });
    expect(result.code, result.stderr).toBe(0);
    expect(fx.model.server.requests[0]?.headers["x-api-key"]).toBe("sk-from-helper");
    expect(result.stderr).not.toContain("apiKeyHelper");

    // The same key in an untrusted project's settings is withheld, and named.
    await rm(join(fx.root, "user", ".claude", "settings.json"));
    await mkdir(join(fx.project, ".claude"), { recursive: true });
    await writeFile(
      join(fx.project, ".claude", "settings.json"),
      JSON.stringify({ apiKeyHelper: "printf 'sk-from-%s' project" }),
    );
    const untrusted = await runCliProcess(["-p", "x"], { cwd: fx.project, env });
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toContain("apiKeyHelper");
    const trusted = await runCliProcess(["-p", "x", "--trust-project"], { cwd: fx.project, env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(fx.model.server.requests.at(-1)?.headers["x-api-key"]).toBe("sk-from-project");
  });

  it("OPENAI_MODEL picks the OpenAI model; --model still wins", async () => {
    fx.model = await startScriptedModel("openai", [{ text: "a" }, { text: "b" }]);
    await run(["-p", "x"], { OPENAI_MODEL: "gpt-5-mini" });
    await run(["-p", "x", "--model", "gpt-5"], { OPENAI_MODEL: "gpt-5-mini" });
    expect(fx.model.seen().map((s) => s.model)).toEqual(["gpt-5-mini", "gpt-5"]);
  });

  it("GOOGLE_GEMINI_BASE_URL points the Gemini adapter at a server", async () => {
    fx.model = await startScriptedModel("gemini", [{ text: "ok" }]);
    const { GEMINI_BASE_URL, GEMINI_API_KEY } = fx.model.env() as Record<string, string>;
    const result = await runCliProcess(["-p", "x"], {
      cwd: fx.project,
      env: cleanEnv(fx.root, {
        GOOGLE_GEMINI_BASE_URL: GEMINI_BASE_URL as string,
        GEMINI_API_KEY: GEMINI_API_KEY as string,
      }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("ok\n");
  });
});
