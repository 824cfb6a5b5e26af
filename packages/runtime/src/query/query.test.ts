import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ScriptedReply, scriptedClient } from "@attractor/agent/testing";
import { estimateCost, type Request } from "@attractor/llm";
import { frames, message, startWireServer, streamEventsFor } from "@attractor/llm/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QueryControlError, QueryOptionError } from "./errors.js";
import { QueryStartError, query } from "./query.js";
import type { QueryOptions, SDKMessage, SDKResultMessage } from "./types.js";

const run = promisify(execFile);

/** The catalog model the tests price against. */
const MODEL = "claude-sonnet-5-5";
const BUGGY = "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n";
const FIXED = BUGGY.replace("a - b", "a + b");
const TEST_JS =
  'const { add } = require("./src/math.js");\nif (add(2, 3) !== 5) { console.error("FAIL"); process.exit(1); }\nconsole.log("PASS");\n';

/** A temp folder with a git project whose add() subtracts, a user home and an attractor home. */
interface Kit {
  readonly root: string;
  readonly project: string;
  readonly home: string;
  readonly env: Record<string, string>;
  read(path: string): Promise<string>;
  remove(): Promise<void>;
}

async function makeKit(): Promise<Kit> {
  const root = await mkdtemp(join(tmpdir(), "attractor-query-test-"));
  const project = join(root, "project");
  await mkdir(join(project, "src"), { recursive: true });
  await mkdir(join(root, "user"), { recursive: true });
  await writeFile(join(project, "src", "math.js"), BUGGY);
  await writeFile(join(project, "test.js"), TEST_JS);
  await run("git", ["init", "-q"], { cwd: project });
  await run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "add", "."], { cwd: project });
  await run("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "init"], {
    cwd: project,
  });
  const home = join(root, "attractor");
  return {
    root,
    project,
    home,
    env: {
      PATH: (process.env.PATH ?? "/usr/bin:/bin")
        .split(":")
        .filter((d) => !/node_modules[\\/]\.bin/.test(d))
        .join(":"),
      HOME: join(root, "user"),
      ATTRACTOR_HOME: home,
      LANG: "C.UTF-8",
    },
    read: (path) => readFile(join(project, path), "utf8"),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** A scripted model: replies in order; requests recorded. */
function model(replies: readonly ScriptedReply[] | ((request: Request, index: number) => ScriptedReply)) {
  return scriptedClient(replies);
}

/** Runs query() to its end and returns every message. */
async function collect(
  kit: Kit,
  prompt: Parameters<typeof query>[0]["prompt"],
  options: QueryOptions,
): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const m of query({
    prompt,
    options: { cwd: kit.project, env: kit.env, model: MODEL, ...options },
  }))
    messages.push(m);
  return messages;
}

const resultOf = (messages: readonly SDKMessage[]): SDKResultMessage => {
  const results = messages.filter((m): m is SDKResultMessage => m.type === "result");
  const last = results.at(-1);
  if (!last) throw new Error(`no result among ${messages.map((m) => m.type).join(", ")}`);
  return last;
};

/** Everything a request sent, as text, for "the model was told" checks. */
const sent = (request: Request | undefined): string => JSON.stringify(request?.messages ?? []);

/** The tool results the model got in a request, in order. */
function toolResults(request: Request | undefined): string[] {
  const out: string[] = [];
  for (const m of request?.messages ?? [])
    for (const part of m.content)
      if (part.kind === "tool_result") out.push(JSON.stringify(part.toolResult.content));
  return out;
}

/** 120 input and 30 output tokens per response, as the priced tests expect. */
const USAGE = { inputTokens: 120, outputTokens: 30 } as const;

let kit: Kit;
beforeEach(async () => {
  kit = await makeKit();
});
afterEach(async () => {
  await kit.remove();
});

const FIX_STEPS: ScriptedReply[] = [
  { toolCalls: [{ name: "read_file", args: { file_path: "src/math.js" } }], usage: USAGE },
  {
    toolCalls: [
      { name: "edit_file", args: { file_path: "src/math.js", old_string: "a - b", new_string: "a + b" } },
    ],
    usage: USAGE,
  },
  { toolCalls: [{ name: "shell", args: { command: "node test.js" } }], usage: USAGE },
  { text: "Fixed add().", usage: USAGE },
];

describe("query(): messages, cost and the basic options", () => {
  it("runs a task with an injected client (cwd, model, client) and yields init, assistant, user and result messages with the catalog cost", async () => {
    const client = model(FIX_STEPS);
    const messages = await collect(kit, "Fix the failing test.", {
      client,
      permissionMode: "acceptEdits",
      allowedTools: ["Bash(node test.js)"],
    });
    expect(await kit.read("src/math.js")).toBe(FIXED);
    expect(messages[0]).toMatchObject({ type: "system", subtype: "init", cwd: kit.project, model: MODEL });
    const types = messages.map((m) => m.type);
    expect(types.filter((t) => t === "assistant")).toHaveLength(4);
    expect(types.filter((t) => t === "user")).toHaveLength(3);
    const result = resultOf(messages);
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Fixed add().",
      num_turns: 4,
      tool_calls: 3,
      permission_denials: [],
      errors: [],
    });
    expect(result.usage.input_tokens).toBe(480);
    expect(result.usage.output_tokens).toBe(120);
    const expected = estimateCost(MODEL, { inputTokens: 480, outputTokens: 120, totalTokens: 600 });
    expect(expected).toBeGreaterThan(0);
    expect(result.total_cost_usd).toBeCloseTo(expected as number, 10);
    expect(result.session_id).toBe(messages[0]?.session_id);
    expect(toolResults(client.requests[3]).join("\n")).toContain("PASS");
  });

  it("prompt as an AsyncIterable: each user message gets its own result, in one session", async () => {
    const client = model([{ text: "one" }, { text: "two" }]);
    async function* input() {
      yield { type: "user" as const, message: { role: "user" as const, content: "first" } };
      yield {
        type: "user" as const,
        message: { role: "user" as const, content: [{ type: "text", text: "second" }] },
      };
    }
    const messages = await collect(kit, input(), { client });
    const results = messages.filter((m) => m.type === "result");
    expect(results.map((r) => (r as { result: string }).result)).toEqual(["one", "two"]);
    expect(new Set(results.map((r) => r.session_id)).size).toBe(1);
    expect(sent(client.requests[1])).toContain("first");
    expect(sent(client.requests[1])).toContain("second");
  });

  it("systemPrompt: a string replaces the agent's instructions; a preset with append keeps them and adds", async () => {
    const replaced = model([{ text: "ok" }]);
    await collect(kit, "hi", { client: replaced, systemPrompt: "You are a terse reviewer named Quill." });
    const appended = model([{ text: "ok" }]);
    await collect(kit, "hi", {
      client: appended,
      systemPrompt: { type: "preset", preset: "claude_code", append: "Always answer in French." },
    });
    const system = (r: Request | undefined) =>
      JSON.stringify((r?.messages ?? []).filter((m) => m.role === "system"));
    expect(system(replaced.requests[0])).toContain("terse reviewer named Quill");
    expect(system(appended.requests[0])).toContain("Always answer in French.");
    // The agent's own instructions (its tool guidance) stay with append and go with a replacement.
    expect(system(appended.requests[0]).length).toBeGreaterThan(system(replaced.requests[0]).length);
  });

  it("env: the run's environment is the shell's (and process.env is not)", async () => {
    const client = model([
      { toolCalls: [{ name: "shell", args: { command: "echo value=$QUERY_MARK" } }] },
      { text: "done" },
    ]);
    await collect(kit, "print it", {
      client,
      permissionMode: "bypassPermissions",
      env: { ...kit.env, QUERY_MARK: "from-env-option" },
    });
    expect(toolResults(client.requests[1]).join()).toContain("value=from-env-option");
  });

  it("includePartialMessages: stream_event messages carry the text as it streams; none without it", async () => {
    const withPartial = await collect(kit, "hi", {
      client: model([{ text: "streamed answer" }]),
      includePartialMessages: true,
    });
    const events = withPartial.filter((m) => m.type === "stream_event");
    expect(events[0]).toMatchObject({ event: { type: "message_start" } });
    const text = events
      .map((m) =>
        m.type === "stream_event" &&
        m.event.type === "content_block_delta" &&
        m.event.delta.type === "text_delta"
          ? m.event.delta.text
          : "",
      )
      .join("");
    expect(text).toBe("streamed answer");
    expect(events.at(-1)).toMatchObject({ event: { type: "message_stop" } });
    const without = await collect(kit, "hi", { client: model([{ text: "streamed answer" }]) });
    expect(without.some((m) => m.type === "stream_event")).toBe(false);
  });
});

const EDIT = {
  toolCalls: [
    { name: "edit_file", args: { file_path: "src/math.js", old_string: "a - b", new_string: "a + b" } },
  ],
};
const SHELL = (command: string) => ({ toolCalls: [{ name: "shell", args: { command } }] });

describe("query(): permissions", () => {
  it("permissionMode: default denies an edit (nobody to ask), acceptEdits allows it, plan does not offer it", async () => {
    const denied = await collect(kit, "fix", {
      client: model([EDIT, { text: "could not" }]),
      permissionMode: "default",
    });
    expect(await kit.read("src/math.js")).toBe(BUGGY);
    expect(resultOf(denied).permission_denials.map((d) => d.tool_name)).toEqual(["edit_file"]);

    const plan = model([{ text: "a plan" }]);
    await collect(kit, "fix", { client: plan, permissionMode: "plan" });
    const offered = (plan.requests[0]?.tools ?? []).map((t) => t.name);
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("edit_file");

    await collect(kit, "fix", { client: model([EDIT, { text: "fixed" }]), permissionMode: "acceptEdits" });
    expect(await kit.read("src/math.js")).toBe(FIXED);
  });

  it("permissionMode bypassPermissions runs a command that default mode refuses", async () => {
    const refused = model([SHELL("node test.js"), { text: "x" }]);
    await collect(kit, "test", { client: refused, permissionMode: "default" });
    expect(toolResults(refused.requests[1]).join()).toMatch(/Permission denied/);
    const ran = model([SHELL("node test.js"), { text: "x" }]);
    await collect(kit, "test", { client: ran, permissionMode: "bypassPermissions" });
    expect(toolResults(ran.requests[1]).join()).toContain("FAIL");
  });

  it("allowedTools (Claude Code's rule syntax) allows one command; disallowedTools denies a tool even where the mode allows it", async () => {
    const allowed = model([SHELL("node test.js"), SHELL("node -e 1"), { text: "x" }]);
    await collect(kit, "test", { client: allowed, allowedTools: ["Bash(node test.js)"] });
    expect(toolResults(allowed.requests[1]).join()).toContain("FAIL");
    expect(toolResults(allowed.requests[2]).at(-1)).toMatch(/Permission denied/);

    const denied = model([
      { toolCalls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { text: "x" },
    ]);
    const messages = await collect(kit, "read", {
      client: denied,
      permissionMode: "bypassPermissions",
      disallowedTools: ["Read"],
    });
    expect(toolResults(denied.requests[1]).join()).not.toContain("a - b");
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(["read_file"]);
  });

  it("canUseTool: asked with Claude Code's names; allow with updatedInput runs the changed call", async () => {
    const asked: { name: string; input: unknown; suggestions: unknown }[] = [];
    const client = model([SHELL("node -e 'console.log(1)'"), { text: "x" }]);
    await collect(kit, "run", {
      client,
      canUseTool: async (name, input, { suggestions }) => {
        asked.push({ name, input, suggestions });
        return { behavior: "allow", updatedInput: { ...input, command: "node test.js" } };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.name).toBe("Bash");
    expect(asked[0]?.input).toMatchObject({ command: "node -e 'console.log(1)'" });
    expect(toolResults(client.requests[1]).join()).toContain("FAIL");
  });

  it("canUseTool: a deny message reaches the model; a throw or no answer denies (fail-closed); interrupt stops the run", async () => {
    const denied = model([EDIT, { text: "x" }]);
    await collect(kit, "fix", {
      client: denied,
      canUseTool: async () => ({ behavior: "deny", message: "edits are frozen today" }),
    });
    expect(toolResults(denied.requests[1]).join()).toContain("edits are frozen today");

    const thrown = model([EDIT, { text: "x" }]);
    const messages = await collect(kit, "fix", {
      client: thrown,
      canUseTool: async () => {
        throw new Error("callback broke");
      },
    });
    expect(toolResults(thrown.requests[1]).join()).toContain("callback broke");
    expect(resultOf(messages).permission_denials).toHaveLength(1);

    await collect(kit, "fix", {
      client: model([EDIT, { text: "x" }]),
      canUseTool: async () => undefined as never,
    });
    expect(await kit.read("src/math.js")).toBe(BUGGY);

    const stopped = await collect(kit, "fix", {
      client: model([EDIT, { text: "should not be asked" }]),
      canUseTool: async () => ({ behavior: "deny", message: "stop", interrupt: true }),
    });
    expect(resultOf(stopped)).toMatchObject({ subtype: "error_during_execution", is_error: true });
    expect(await kit.read("src/math.js")).toBe(BUGGY);
  });
});

describe("query(): hooks as functions", () => {
  it("PreToolUse: a deny decision blocks the call with its reason; the hook sees Claude Code's input shape", async () => {
    const inputs: Record<string, unknown>[] = [];
    const client = model([SHELL("node test.js"), { text: "x" }]);
    await collect(kit, "test", {
      client,
      permissionMode: "bypassPermissions",
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              async (input, toolUseID) => {
                inputs.push({ ...input, toolUseID });
                return {
                  hookSpecificOutput: {
                    hookEventName: "PreToolUse",
                    permissionDecision: "deny",
                    permissionDecisionReason: "tests run in CI only",
                  },
                };
              },
            ],
          },
        ],
      },
    });
    expect(inputs[0]).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "node test.js" },
      cwd: kit.project,
    });
    expect(inputs[0]?.toolUseID).toBe(inputs[0]?.tool_use_id);
    expect(toolResults(client.requests[1]).join()).toContain("tests run in CI only");
  });

  it("PreToolUse allow skips the permission check; a matcher that does not match leaves the call alone", async () => {
    let calls = 0;
    const client = model([SHELL("node test.js"), { text: "x" }]);
    await collect(kit, "test", {
      client,
      hooks: {
        PreToolUse: [
          { matcher: "Edit", hooks: [async () => ({ decision: "block", reason: "never" })] },
          {
            matcher: "Bash",
            hooks: [
              async () => {
                calls++;
                return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } };
              },
            ],
          },
        ],
      },
    });
    expect(calls).toBe(1);
    expect(toolResults(client.requests[1]).join()).toContain("FAIL");
  });

  it("PostToolUse additionalContext and UserPromptSubmit additionalContext reach the model; Stop block makes it go on", async () => {
    let stops = 0;
    const client = model([
      { toolCalls: [{ name: "read_file", args: { file_path: "test.js" } }] },
      { text: "first answer" },
      { text: "second answer" },
    ]);
    const messages = await collect(kit, "look", {
      client,
      hooks: {
        UserPromptSubmit: [
          {
            hooks: [
              async () => ({
                hookSpecificOutput: {
                  hookEventName: "UserPromptSubmit",
                  additionalContext: "ticket ABC-123",
                },
              }),
            ],
          },
        ],
        PostToolUse: [
          {
            hooks: [
              async () => ({
                hookSpecificOutput: {
                  hookEventName: "PostToolUse",
                  additionalContext: "remember the linter",
                },
              }),
            ],
          },
        ],
        Stop: [
          {
            hooks: [
              async () => (stops++ === 0 ? { decision: "block", reason: "also check the README" } : {}),
            ],
          },
        ],
      },
    });
    expect(sent(client.requests[0])).toContain("ticket ABC-123");
    expect(sent(client.requests[1])).toContain("remember the linter");
    expect(sent(client.requests[2])).toContain("also check the README");
    expect(resultOf(messages).result).toBe("second answer");
  });

  it("a hook that throws is reported and does not block the call", async () => {
    const client = model([SHELL("node test.js"), { text: "x" }]);
    const messages = await collect(kit, "test", {
      client,
      permissionMode: "bypassPermissions",
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async () => {
                throw new Error("hook exploded");
              },
            ],
          },
        ],
      },
    });
    expect(toolResults(client.requests[1]).join()).toContain("FAIL");
    expect(
      messages.some((m) => m.type === "system" && "message" in m && /hook exploded/.test(m.message)),
    ).toBe(true);
  });

  it("a hook that answers with something other than a hook output object is reported, never read as no objection", async () => {
    const client = model([SHELL("node test.js"), { text: "x" }]);
    const messages = await collect(kit, "test", {
      client,
      permissionMode: "bypassPermissions",
      // A program's mistake: the decision as a bare string.
      hooks: { PreToolUse: [{ hooks: [async () => "block" as never] }] },
    });
    expect(
      messages.some((m) => m.type === "system" && "message" in m && /no hook output object/.test(m.message)),
    ).toBe(true);
  });
});

const SCHEMA = {
  type: "object",
  properties: { fixed: { type: "boolean" }, files: { type: "array", items: { type: "string" } } },
  required: ["fixed", "files"],
  additionalProperties: false,
} as const;

describe("query(): structured output and limits", () => {
  it("outputSchema: a valid final answer is the result's structured_output; the schema is in the instructions", async () => {
    const client = model([{ text: '{"fixed": true, "files": ["src/math.js"]}' }]);
    const result = resultOf(await collect(kit, "report", { client, outputSchema: SCHEMA }));
    expect(result).toMatchObject({
      subtype: "success",
      structured_output: { fixed: true, files: ["src/math.js"] },
    });
    expect(sent(client.requests[0])).toContain('\\"required\\":[\\"fixed\\",\\"files\\"]');
  });

  it("outputFormat (the Claude Agent SDK's spelling): an invalid answer is sent back to be fixed, and the fix is used", async () => {
    const client = model([{ text: "All fixed!" }, { text: '```json\n{"fixed": true, "files": []}\n```' }]);
    const result = resultOf(
      await collect(kit, "report", { client, outputFormat: { type: "json_schema", schema: SCHEMA } }),
    );
    expect(sent(client.requests[1])).toContain("not JSON");
    expect(result).toMatchObject({ subtype: "success", structured_output: { fixed: true, files: [] } });
  });

  it("an answer that stays invalid ends in an error result, never a silently invalid object", async () => {
    const client = model([
      { text: '{"fixed": "yes"}' },
      { text: '{"fixed": "yes"}' },
      { text: '{"fixed": "still"}' },
    ]);
    const result = resultOf(await collect(kit, "report", { client, outputSchema: SCHEMA }));
    expect(result).toMatchObject({
      subtype: "error_max_structured_output_retries",
      is_error: true,
      exit_reason: "invalid_output",
    });
    expect(result.structured_output).toBeUndefined();
    expect(result.errors[0]).toMatch(/must be boolean|required/);
    expect(client.requests).toHaveLength(3);
  });

  it("maxTurns: a task that needs more responses ends with error_max_turns", async () => {
    const client = model([SHELL("echo 1"), SHELL("echo 2"), SHELL("echo 3"), { text: "done" }]);
    const result = resultOf(
      await collect(kit, "loop", { client, permissionMode: "bypassPermissions", maxTurns: 2 }),
    );
    expect(result).toMatchObject({ subtype: "error_max_turns", is_error: true });
    expect(result.errors[0]).toContain("maxTurns");
    expect(client.requests.length).toBeLessThanOrEqual(2);
  });

  it("maxDurationMs: a run past its wall-clock limit is stopped with an error result naming the limit", async () => {
    const started = Date.now();
    const result = resultOf(
      await collect(kit, "wait", { client: model([{ hang: true }]), maxDurationMs: 300 }),
    );
    expect(result).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      exit_reason: "time_limit",
    });
    expect(result.errors[0]).toContain("maxDurationMs (300 ms)");
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("abortController: aborting ends the generator with an error_during_execution result and stops the command", async () => {
    const controller = new AbortController();
    const marker = join(kit.root, "late-marker");
    const client = model([SHELL(`sleep 3 && touch ${marker}`), { text: "x" }]);
    const messages: SDKMessage[] = [];
    for await (const m of query({
      prompt: "sleep",
      options: {
        cwd: kit.project,
        env: kit.env,
        client,
        permissionMode: "bypassPermissions",
        abortController: controller,
      },
    })) {
      messages.push(m);
      if (m.type === "assistant") setTimeout(() => controller.abort(), 200);
    }
    const result = resultOf(messages);
    expect(result).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      exit_reason: "aborted",
    });
    expect(result.errors[0]).toContain("abortController");
    await new Promise((r) => setTimeout(r, 3500));
    await expect(readFile(marker)).rejects.toThrow();
  });
});

/** The transcripts stored under the kit's attractor home. */
async function storedSessions(): Promise<string[]> {
  const dir = join(kit.home, "sessions");
  const projects = await readdir(dir).catch(() => [] as string[]);
  const files = await Promise.all(projects.map((p) => readdir(join(dir, p))));
  return files.flat().map((f) => f.replace(/\.jsonl$/, ""));
}

describe("query(): sessions", () => {
  it("resume continues a stored session under the same id, with its history sent to the model", async () => {
    const first = resultOf(
      await collect(kit, "remember the word heliotrope", { client: model([{ text: "noted" }]) }),
    );
    const client = model([{ text: "heliotrope" }]);
    const second = resultOf(await collect(kit, "which word?", { client, resume: first.session_id }));
    expect(second.session_id).toBe(first.session_id);
    expect(sent(client.requests[0])).toContain("remember the word heliotrope");
    expect(await storedSessions()).toEqual([first.session_id]);
  });

  it("continue picks the project's latest session", async () => {
    const first = resultOf(
      await collect(kit, "remember the word gamboge", { client: model([{ text: "noted" }]) }),
    );
    const client = model([{ text: "gamboge" }]);
    const second = resultOf(await collect(kit, "which word?", { client, continue: true }));
    expect(second.session_id).toBe(first.session_id);
    expect(sent(client.requests[0])).toContain("gamboge");
  });

  it("forkSession: a new id with the same history; the original transcript is left as it was", async () => {
    const first = resultOf(
      await collect(kit, "remember the word vermilion", { client: model([{ text: "noted" }]) }),
    );
    const sessions = join(kit.home, "sessions");
    const [folder] = await readdir(sessions);
    const original = await readFile(join(sessions, folder as string, `${first.session_id}.jsonl`), "utf8");
    const client = model([{ text: "vermilion" }]);
    const fork = resultOf(
      await collect(kit, "which word?", { client, resume: first.session_id, forkSession: true }),
    );
    expect(fork.session_id).not.toBe(first.session_id);
    expect(sent(client.requests[0])).toContain("remember the word vermilion");
    expect(await readFile(join(sessions, folder as string, `${first.session_id}.jsonl`), "utf8")).toBe(
      original,
    );
    expect((await storedSessions()).sort()).toEqual([first.session_id, fork.session_id].sort());
  });

  it("persistSession false stores nothing, and can still resume a stored session without writing to it", async () => {
    resultOf(await collect(kit, "hi", { client: model([{ text: "x" }]), persistSession: false }));
    expect(await storedSessions()).toEqual([]);
    const stored = resultOf(await collect(kit, "remember ochre", { client: model([{ text: "ok" }]) }));
    const client = model([{ text: "ochre" }]);
    await collect(kit, "which?", { client, resume: stored.session_id, persistSession: false });
    expect(sent(client.requests[0])).toContain("remember ochre");
    expect(await storedSessions()).toEqual([stored.session_id]);
  });
});

describe("query(): settings, agents, controls and bad options", () => {
  it("settingSources: none by default (a project's allow rule is not read); ['project'] reads it", async () => {
    await mkdir(join(kit.project, ".claude"), { recursive: true });
    await writeFile(
      join(kit.project, ".claude", "settings.json"),
      JSON.stringify({ permissions: { allow: ["Bash(node test.js)"] } }),
    );
    const without = model([SHELL("node test.js"), { text: "x" }]);
    await collect(kit, "test", { client: without });
    expect(toolResults(without.requests[1]).join()).toMatch(/Permission denied/);
    const withProject = model([SHELL("node test.js"), { text: "x" }]);
    await collect(kit, "test", { client: withProject, settingSources: ["project"] });
    expect(toolResults(withProject.requests[1]).join()).toContain("FAIL");
  });

  it("agents: a named subagent is offered to the model and runs with its own prompt", async () => {
    const client = model((request) => {
      const text = sent(request);
      if (text.includes("You review arithmetic.")) return { text: "the subagent says: minus should be plus" };
      if (text.includes("minus should be plus")) return { text: "done" };
      return {
        toolCalls: [
          { name: "spawn_agent", args: { task: "check src/math.js", subagent_type: "math-reviewer" } },
        ],
      };
    });
    const messages = await collect(kit, "review", {
      client,
      agents: {
        "math-reviewer": {
          description: "Reviews arithmetic code",
          prompt: "You review arithmetic.",
          tools: ["Read"],
        },
      },
    });
    expect(JSON.stringify(client.requests[0]?.tools)).toContain("math-reviewer");
    expect(resultOf(messages).result).toBe("done");
  });

  it("interrupt(), setPermissionMode() and setModel() act on the running query", async () => {
    const client = model((request, index) => {
      if (index === 0) return SHELL("node test.js");
      if (index === 1) return { text: `model ${request.model}` };
      return { hang: true };
    });
    async function* input() {
      yield { type: "user" as const, message: { role: "user" as const, content: "run the test" } };
      await new Promise((r) => setTimeout(r, 50));
      yield { type: "user" as const, message: { role: "user" as const, content: "wait forever" } };
    }
    const q = query({ prompt: input(), options: { cwd: kit.project, env: kit.env, model: MODEL, client } });
    await q.setPermissionMode("bypassPermissions");
    await q.setModel("claude-opus-5");
    const results: SDKResultMessage[] = [];
    for await (const m of q) {
      if (m.type !== "result") continue;
      results.push(m);
      // Interrupted once the second message's request is waiting on the model.
      if (results.length === 1)
        void (async () => {
          while (client.requests.length < 3) await new Promise((r) => setTimeout(r, 20));
          await q.interrupt();
        })();
    }
    expect(toolResults(client.requests[1]).join()).toContain("FAIL");
    expect(client.requests[1]?.model).toBe("claude-opus-5");
    expect(results[0]?.subtype).toBe("success");
    expect(results[1]).toMatchObject({ subtype: "error_during_execution", is_error: true });
    await expect(q.setPermissionMode("sometimes" as never)).rejects.toThrow(/unknown permission mode/);
    await expect(q.setModel("claude-opus-5")).rejects.toThrow(QueryControlError);
  });

  it("setModel refuses a model of another provider with a QueryControlError", async () => {
    const q = query({
      prompt: "hi",
      options: { cwd: kit.project, env: kit.env, model: MODEL, client: model([{ text: "x" }]) },
    });
    const error = await q.setModel("gpt-6.2-sol").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueryControlError);
    expect(error).toMatchObject({ method: "setModel" });
    expect((error as Error).message).toContain("openai");
    for await (const _ of q) {
      // drained: the run goes on with its model
    }
  });

  it("bad options are refused with a QueryOptionError naming the option, before anything runs", async () => {
    const bad: [QueryOptions, string][] = [
      [{ permissionMode: "sometimes" as never }, "permissionMode"],
      [{ maxTurns: -1 }, "maxTurns"],
      [{ maxDurationMs: 0 }, "maxDurationMs"],
      [{ forkSession: true }, "forkSession"],
      [{ outputSchema: { type: "nonsense" } }, "outputSchema"],
      [{ hooks: { BeforeEverything: [] } as never }, "hooks"],
      [{ mcpServers: { broken: { type: "http" } as never } }, "mcpServers"],
      [{ settingSources: ["global" as never] }, "settingSources"],
      [{ resume: "no-such-session", forkSession: true }, "resume"],
    ];
    for (const [options, option] of bad) {
      const client = model([{ text: "x" }]);
      const error = await collect(kit, "x", { client, ...options }).catch((e: unknown) => e);
      expect(error, option).toBeInstanceOf(QueryOptionError);
      expect((error as QueryOptionError).option).toBe(option);
      expect(client.requests).toHaveLength(0);
    }
    const unknownProvider = await collect(kit, "x", { provider: "nope" }).catch((e: unknown) => e);
    expect(unknownProvider).toBeInstanceOf(QueryStartError);
    expect((unknownProvider as Error).message).toContain('Unknown provider "nope"');
    const unknownSession = await collect(kit, "x", {
      client: model([]),
      resume: "20990101T000000-deadbeef",
    }).catch((e: unknown) => e);
    expect(unknownSession).toBeInstanceOf(QueryStartError);
    expect((unknownSession as Error).message).toContain("20990101T000000-deadbeef");
    const missingDir = await collect(kit, "x", { client: model([]), cwd: join(kit.root, "nowhere") }).catch(
      (e: unknown) => e,
    );
    expect(missingDir).toBeInstanceOf(QueryStartError);
    expect((missingDir as Error).message).toContain("does not exist");
  });
});

describe("query(): leaving early", () => {
  it("an abortController aborted before the query starts: an aborted result, and no model request", async () => {
    const controller = new AbortController();
    controller.abort();
    const client = model([{ text: "x" }]);
    const result = resultOf(await collect(kit, "hi", { client, abortController: controller }));
    expect(result).toMatchObject({ subtype: "error_during_execution", exit_reason: "aborted", num_turns: 0 });
    expect(client.requests).toHaveLength(0);
  });

  it("a caller that breaks out of the loop ends the run and its command", async () => {
    const marker = join(kit.root, "late-marker");
    const client = model([SHELL(`sleep 2 && touch ${marker}`), { text: "x" }]);
    for await (const m of query({
      prompt: "sleep",
      options: { cwd: kit.project, env: kit.env, client, permissionMode: "bypassPermissions" },
    }))
      if (m.type === "assistant") break;
    await new Promise((r) => setTimeout(r, 2500));
    await expect(readFile(marker)).rejects.toThrow();
    expect(client.requests).toHaveLength(1);
  });
});

describe("query(): provider, baseUrl and additionalDirectories", () => {
  it("provider + baseUrl: the run talks to that provider's wire protocol at that address, with the key from env", async () => {
    const server = await startWireServer((request) => {
      const content = [{ type: "text", text: "hello over the wire" }];
      return request.body?.stream
        ? { kind: "sse", frames: frames(streamEventsFor(content, "end_turn", { input: 40, output: 8 })) }
        : { kind: "json", body: message(content, "end_turn", { input_tokens: 40, output_tokens: 8 }) };
    });
    try {
      const messages = await collect(kit, "hi", {
        provider: "anthropic",
        baseUrl: server.url,
        env: { ...kit.env, ANTHROPIC_API_KEY: "test-key" },
      });
      expect(resultOf(messages)).toMatchObject({
        subtype: "success",
        result: "hello over the wire",
        provider: "anthropic",
      });
      expect(server.requests[0]?.path).toMatch(/\/messages$/);
      expect(server.requests[0]?.headers["x-api-key"]).toBe("test-key");
    } finally {
      await server.close();
    }
  });

  it("additionalDirectories: a file outside the project is readable only when its directory is added", async () => {
    const other = join(kit.root, "shared");
    await mkdir(other, { recursive: true });
    await writeFile(join(other, "notes.txt"), "shared note 7781\n");
    const read = { toolCalls: [{ name: "read_file", args: { file_path: join(other, "notes.txt") } }] };
    const without = model([read, { text: "x" }]);
    await collect(kit, "read", { client: without });
    expect(toolResults(without.requests[1]).join()).not.toContain("shared note 7781");
    const withDir = model([read, { text: "x" }]);
    await collect(kit, "read", { client: withDir, additionalDirectories: [other] });
    expect(toolResults(withDir.requests[1]).join()).toContain("shared note 7781");
  });
});
