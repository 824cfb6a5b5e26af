// The official Claude Agent SDK as the client, with the built attractor command as its "Claude Code
// executable" and the scripted model on 127.0.0.1: each SDK option and callback in one test.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createSdkMcpServer,
  type HookInput,
  type Options,
  query,
  type SDKMessage,
  type SDKUserMessage,
  tool,
} from "@anthropic-ai/claude-agent-sdk";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  buggyProject,
  CLI_PATH,
  cleanEnv,
  requireBuiltCli,
  type ScriptedModel,
  type Step,
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

/** The SDK's options for a run of attractor against the scripted model in the test's project. */
function options(extra: Options = {}, stderr?: string[]): Options {
  return {
    pathToClaudeCodeExecutable: CLI_PATH,
    cwd: dir.project,
    env: cleanEnv(dir.root, model.env()),
    stderr: (text) => stderr?.push(text),
    ...extra,
  };
}

/** Runs a query to its end and returns every message it yielded. */
async function collect(
  prompt: string | AsyncIterable<SDKUserMessage>,
  extra: Options = {},
): Promise<{ messages: SDKMessage[]; stderr: string }> {
  const stderr: string[] = [];
  const messages: SDKMessage[] = [];
  for await (const message of query({ prompt, options: options(extra, stderr) })) messages.push(message);
  return { messages, stderr: stderr.join("") };
}

const results = (messages: readonly SDKMessage[]) =>
  messages.filter((m): m is Extract<SDKMessage, { type: "result" }> => m.type === "result");

/** The tool results the model was given, in order (from the SDK's user messages). */
function toolResults(messages: readonly SDKMessage[]): { content: string; is_error: boolean }[] {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? (m.message.content as { type: string; content?: unknown; is_error?: boolean }[])
          .filter((b) => b.type === "tool_result")
          .map((b) => ({ content: String(b.content), is_error: b.is_error === true }))
      : [],
  );
}

const lastResultMentions =
  (pattern: RegExp): Extract<Step, { expect?: unknown }>["expect"] =>
  (r) =>
    pattern.test(r.at(-1) ?? "") ? undefined : `unexpected tool result: ${r.at(-1)}`;

describe("the Claude Agent SDK with attractor as its executable", () => {
  it("plain prompt: the answer arrives as the SDK's init, assistant and result messages", async () => {
    model.script([{ text: "hello from the model" }]);
    const { messages, stderr } = await collect("say hello");
    expect(messages[0], stderr).toMatchObject({ type: "system", subtype: "init" });
    expect(messages.some((m) => m.type === "assistant")).toBe(true);
    expect(results(messages)).toEqual([
      expect.objectContaining({ subtype: "success", result: "hello from the model" }),
    ]);
    expect(model.seen().at(-1)?.userTexts).toContain("say hello");
  });

  it("streaming input: each message of the prompt iterable is a turn of one session", async () => {
    model.script([{ text: "first answer" }, { text: "second answer" }]);
    const turns = ["first question", "second question"];
    async function* prompt(): AsyncGenerator<SDKUserMessage> {
      for (const text of turns)
        yield {
          type: "user",
          message: { role: "user", content: text },
          parent_tool_use_id: null,
          session_id: "",
        };
    }
    const { messages, stderr } = await collect(prompt());
    expect(
      results(messages).map((r) => (r.subtype === "success" ? r.result : r.subtype)),
      stderr,
    ).toEqual(["first answer", "second answer"]);
    // The second request carried the whole conversation: one session.
    expect(model.seen().at(-1)?.userTexts).toEqual(turns);
  });

  it("permissionMode: acceptEdits lets the model write a file without a permission callback", async () => {
    model.script([
      { calls: [{ name: "write_file", args: { file_path: "notes.txt", content: "written\n" } }] },
      { expect: lastResultMentions(/notes\.txt|Wrote|wrote|bytes/), text: "done" },
    ]);
    const { messages, stderr } = await collect("write notes", { permissionMode: "acceptEdits" });
    expect(messages[0], stderr).toMatchObject({ type: "system", permissionMode: "acceptEdits" });
    expect(await readFile(join(dir.project, "notes.txt"), "utf8")).toBe("written\n");
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "done" });
  });

  it("allowedTools: an allowed command runs headless, one not allowed is refused", async () => {
    model.script([
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { calls: [{ name: "shell", args: { command: "touch not-allowed.txt" } }] },
      { text: "ran" },
    ]);
    const { messages, stderr } = await collect("run the tests", { allowedTools: ["Bash(node test.js)"] });
    const [tests, touch] = toolResults(messages);
    expect(tests?.content, stderr).toMatch(/FAIL|PASS/);
    expect(touch).toMatchObject({ is_error: true, content: expect.stringMatching(/Permission denied/) });
    expect(existsSync(join(dir.project, "not-allowed.txt"))).toBe(false);
  });

  it("canUseTool: allow with updatedInput runs the changed call; deny gives the model the message", async () => {
    model.script([
      { calls: [{ name: "shell", args: { command: "echo asked-for > out.txt" } }] },
      { calls: [{ name: "shell", args: { command: "rm -f src/math.js" } }] },
      { text: "finished" },
    ]);
    const asked: { name: string; input: Record<string, unknown> }[] = [];
    const { messages, stderr } = await collect("do it", {
      canUseTool: async (name, input) => {
        asked.push({ name, input });
        if (String(input.command).startsWith("echo"))
          return { behavior: "allow", updatedInput: { ...input, command: "echo rewritten > out.txt" } };
        return { behavior: "deny", message: "deleting sources is not allowed here" };
      },
    });
    expect(
      asked.map((a) => [a.name, a.input.command]),
      stderr,
    ).toEqual([
      ["Bash", "echo asked-for > out.txt"],
      ["Bash", "rm -f src/math.js"],
    ]);
    expect(await readFile(join(dir.project, "out.txt"), "utf8")).toBe("rewritten\n");
    expect(existsSync(join(dir.project, "src", "math.js"))).toBe(true);
    const [, denied] = toolResults(messages);
    expect(denied).toMatchObject({
      is_error: true,
      content: expect.stringContaining("deleting sources is not allowed here"),
    });
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "finished" });
  });

  it("interrupt(): a running command is stopped and the turn ends at once", async () => {
    model.script([{ calls: [{ name: "shell", args: { command: "sleep 30" } }] }, { text: "never" }]);
    const q = query({ prompt: "wait", options: options({ permissionMode: "bypassPermissions" }) });
    let interruptedAt: number | undefined;
    let endedAt: number | undefined;
    const seen: SDKMessage[] = [];
    for await (const message of q) {
      seen.push(message);
      if (message.type === "assistant" && interruptedAt === undefined) {
        // The call has started; give the command a moment to be running.
        await new Promise((r) => setTimeout(r, 300));
        interruptedAt = performance.now();
        await q.interrupt();
      }
      if (message.type === "result") {
        endedAt = performance.now();
        break;
      }
    }
    q.close();
    expect(interruptedAt).toBeDefined();
    const latencyMs = (endedAt ?? Number.POSITIVE_INFINITY) - (interruptedAt ?? 0);
    // The figure the goal is stated in (stops within 1 s); reported, not asserted as a timing.
    console.log(`interrupt() to the turn's result: ${latencyMs.toFixed(0)} ms`);
    // Far from the 30 s the command would take: it was stopped, not waited for.
    expect(latencyMs).toBeLessThan(10_000);
    expect(results(seen)[0]).toMatchObject({ is_error: true, subtype: "error_during_execution" });
  });

  it("createSdkMcpServer: the model calls an in-process tool over the control channel", async () => {
    model.script([
      { calls: [{ name: "mcp__calc__add", args: { a: 2, b: 40 } }] },
      { expect: lastResultMentions(/42/), text: "the sum is 42" },
    ]);
    const calls: { a: number; b: number }[] = [];
    const before = model.seen().length;
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async (args) => {
          calls.push(args);
          return { content: [{ type: "text", text: String(args.a + args.b) }] };
        }),
      ],
    });
    const { messages, stderr } = await collect("add 2 and 40", {
      mcpServers: { calc },
      allowedTools: ["mcp__calc__add"],
    });
    expect(model.seen()[before]?.tools, stderr).toContain("mcp__calc__add");
    expect(calls).toEqual([{ a: 2, b: 40 }]);
    expect(toolResults(messages)[0]).toMatchObject({
      is_error: false,
      content: expect.stringContaining("42"),
    });
    expect(results(messages)[0]).toMatchObject({ subtype: "success", result: "the sum is 42" });
  });

  it("hook callbacks: a PreToolUse callback blocks a Bash call, with Claude Code's hook input", async () => {
    await writeFile(join(dir.project, "keep.txt"), "keep\n");
    model.script([{ calls: [{ name: "shell", args: { command: "rm keep.txt" } }] }, { text: "blocked" }]);
    const inputs: HookInput[] = [];
    const { messages, stderr } = await collect("remove it", {
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async (input) => {
                inputs.push(input);
                return {
                  hookSpecificOutput: {
                    hookEventName: "PreToolUse",
                    permissionDecision: "deny",
                    permissionDecisionReason: "the guard keeps keep.txt",
                  },
                };
              },
            ],
          },
        ],
      },
    });
    expect(inputs, stderr).toEqual([
      expect.objectContaining({
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: expect.objectContaining({ command: "rm keep.txt" }),
      }),
    ]);
    expect(existsSync(join(dir.project, "keep.txt"))).toBe(true);
    expect(toolResults(messages)[0]).toMatchObject({
      is_error: true,
      content: expect.stringContaining("the guard keeps keep.txt"),
    });
  });

  it("hook callbacks run at UserPromptSubmit, PostToolUse and Stop; systemPrompt reaches the model", async () => {
    model.script([{ calls: [{ name: "read_file", args: { file_path: "test.js" } }] }, { text: "read it" }]);
    const events: string[] = [];
    const record =
      (extra: Record<string, unknown> = {}) =>
      async (input: HookInput) => {
        events.push(input.hook_event_name);
        return extra;
      };
    const { messages, stderr } = await collect("look at the test", {
      systemPrompt: "You are the release bot of this project.",
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              record({
                hookSpecificOutput: {
                  hookEventName: "UserPromptSubmit",
                  additionalContext: "Ticket REL-42 is open.",
                },
              }),
            ],
          },
        ],
        PostToolUse: [{ matcher: "Read", hooks: [record()] }],
        Stop: [{ hooks: [record()] }],
      },
    });
    expect(results(messages)[0], stderr).toMatchObject({ subtype: "success", result: "read it" });
    expect(events).toEqual(["UserPromptSubmit", "PostToolUse", "Stop"]);
    const request = model.seen().at(-1);
    expect(JSON.stringify(request?.body.system)).toContain("You are the release bot of this project.");
    expect(JSON.stringify(request?.body.messages)).toContain("Ticket REL-42 is open.");
  });

  it("agents: a subagent the program defines is offered by name, runs with its prompt and tools, and its answer comes back", async () => {
    model.script([
      {
        calls: [{ name: "spawn_agent", args: { task: "check src/math.js", subagent_type: "math-reviewer" } }],
      },
      { text: "the reviewer says: minus should be plus" },
      { expect: lastResultMentions(/minus should be plus/), text: "done" },
    ]);
    const before = model.seen().length;
    const { messages, stderr } = await collect("review the arithmetic", {
      agents: {
        "math-reviewer": {
          description: "Reviews arithmetic code",
          prompt: "You review arithmetic.",
          tools: ["Read"],
        },
      },
    });
    expect(results(messages)[0], stderr).toMatchObject({ subtype: "success", result: "done" });
    expect(stderr).not.toContain("not honoured: agents");
    const [parent, child] = model.seen().slice(before);
    expect(JSON.stringify(parent?.body.tools)).toContain("math-reviewer");
    expect(JSON.stringify(child?.body.system)).toContain("You review arithmetic.");
    // The definition's tools, not the parent's: the child may read, not run commands.
    expect(child?.tools).toContain("read_file");
    expect(child?.tools).not.toContain("shell");
  });
});

describe("a program written for the Claude Agent SDK", () => {
  const example = resolve(
    fileURLToPath(new URL(".", import.meta.url)),
    "../../../examples/claude-agent-sdk-todo-report.mjs",
  );

  it("runs unchanged with attractor as its Claude Code executable", async () => {
    await writeFile(join(dir.project, "src", "todo.js"), "// TODO: handle overflow\nexport const x = 1;\n");
    model.script([
      { calls: [{ name: "grep", args: { pattern: "TODO" } }] },
      {
        expect: lastResultMentions(/handle overflow/),
        calls: [{ name: "shell", args: { command: "rm -rf src" } }],
      },
      {
        expect: lastResultMentions(/only reads files/),
        calls: [
          {
            name: "mcp__todo__report",
            args: { items: [{ file: "src/todo.js", text: "TODO: handle overflow" }] },
          },
        ],
      },
      { expect: lastResultMentions(/recorded 1 item/), text: "One TODO found." },
    ]);
    const child = spawn(process.execPath, [example, dir.project], {
      cwd: dir.project,
      env: cleanEnv(dir.root, { ...model.env(), CLAUDE_CODE_EXECUTABLE: CLI_PATH }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("src/todo.js: TODO: handle overflow\nsummary: One TODO found.\n");
    expect(existsSync(join(dir.project, "src", "math.js"))).toBe(true);
  });
});
