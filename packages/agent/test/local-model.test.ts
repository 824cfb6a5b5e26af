import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { Client, OpenAICompatibleAdapter } from "@attractor/llm";
import { type Reply, sse, startWireServer, type WireServer } from "@attractor/llm/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { createOpenAICompatibleProfile } from "../src/profiles/openai-compatible/index.js";
import { Session } from "../src/session/session.js";
import type { SessionEvent } from "../src/types/events.js";
import type { ToolCallMode } from "../src/types/profile.js";
import { collect, tempDir } from "./support/fixtures.js";

// A local server without tool support, as Ollama serves models that lack it: it would reject a
// request carrying `tools`, and the model writes <tool_call> blocks in its text instead.

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(() => server.close());

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
  server.requests.length = 0;
});
afterEach(() => remove());

/** The SSE frames of a streamed Chat Completions answer, the content cut into small deltas. */
function streamed(content: string, options: { reasoning?: string; size?: number } = {}): Reply {
  const base = {
    id: "chatcmpl-local",
    object: "chat.completion.chunk",
    created: 1_741_569_952,
    model: "qwen3:8b",
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const frames = [chunk({ role: "assistant", content: "" })];
  if (options.reasoning) frames.push(chunk({ reasoning: options.reasoning }));
  const size = options.size ?? 6;
  for (let i = 0; i < content.length; i += size) frames.push(chunk({ content: content.slice(i, i + size) }));
  frames.push(chunk({}, "stop"));
  frames.push(
    sse({ ...base, choices: [], usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 } }),
  );
  frames.push(sse("[DONE]"));
  return { kind: "sse", frames };
}

const rejectTools: Reply = {
  kind: "json",
  status: 400,
  body: { error: { message: "registry.ollama.ai/library/small does not support tools", type: "api_error" } },
};

/** The scripted model: each answer depends on what the conversation holds so far. */
function localModel(
  replies: readonly ((body: { messages: { role: string; content: string }[] }) => Reply)[],
) {
  let turn = 0;
  server.setHandler((req) => {
    if (req.body?.tools !== undefined) return rejectTools;
    const next = replies[turn++];
    return next ? next(req.body) : { kind: "text", status: 599, body: "script exhausted" };
  });
}

async function repoWithBug(): Promise<void> {
  await mkdir(path.join(dir, "src"));
  await writeFile(path.join(dir, "src/math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
  await writeFile(
    path.join(dir, "test.js"),
    [
      'import { add } from "./src/math.js";',
      "if (add(2, 3) !== 5) {",
      '  console.error("FAIL: add(2, 3) =", add(2, 3));',
      "  process.exit(1);",
      "}",
      'console.log("ok: add(2, 3) = 5");',
      "",
    ].join("\n"),
  );
  await writeFile(path.join(dir, "package.json"), '{ "type": "module" }\n');
}

function session(mode: ToolCallMode) {
  const client = new Client({
    providers: {
      "openai-compatible": new OpenAICompatibleAdapter({ baseUrl: `${server.url}/v1`, env: {} }),
    },
  });
  const s = new Session({
    // This server wants its reasoning back (as vLLM's and DeepSeek's do); the option says so.
    profile: createOpenAICompatibleProfile("qwen3:8b", {
      toolCallMode: mode,
      providerOptions: { "openai-compatible": { sendReasoning: true } },
    }),
    environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
    client,
    retry: { maxRetries: 0 },
  });
  return { session: s, events: collect(s.events()) };
}

const lastUser = (body: { messages: { role: string; content: string }[] }) =>
  body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";

describe("a local model without native tool calling", () => {
  it("fixes a bug through prompted tool calls over the real adapter", async () => {
    await repoWithBug();
    localModel([
      () =>
        streamed(
          '<think>The add function is probably wrong.</think>I will read the code first.\n<tool_call>{"name": "read_file", "arguments": {"path": "src/math.js"}}</tool_call>',
        ),
      (body) => {
        // The model only goes on if it got the file back.
        if (!lastUser(body).includes("return a - b")) return streamed("I could not read the file.");
        return streamed(
          'The function subtracts. Fixing it:\n```json\n<tool_call>\n{"name": "edit_file", "args": {"filePath": "src/math.js", "old_string": "return a - b;", "new_string": "return a + b;"}}\n</tool_call>\n```',
        );
      },
      () => streamed('<tool_call>{"tool": "shell", "command": "node test.js"}</tool_call>', { size: 4 }),
      (body) =>
        lastUser(body).includes("ok: add(2, 3) = 5")
          ? streamed(
              "Fixed `add` in src/math.js: it subtracted instead of adding. `node test.js` passes now.",
              {
                reasoning: "The test passed.",
              },
            )
          : streamed("The test still fails."),
    ]);
    const { session: s, events } = session("prompted");
    await s.submit("The test in test.js fails. Find the bug and fix it.");
    await s.close();
    const all: SessionEvent[] = await events;

    expect(await readFile(path.join(dir, "src/math.js"), "utf8")).toContain("return a + b;");
    expect(execFileSync("node", ["test.js"], { cwd: dir, encoding: "utf8" })).toContain("ok");

    expect(server.requests).toHaveLength(4);
    for (const req of server.requests) {
      expect(req.body.tools).toBeUndefined();
      expect(req.body.messages.every((m: { role: string }) => m.role !== "tool")).toBe(true);
    }
    expect(server.requests[0]!.body.messages[0].content).toContain("# Calling tools");
    // The think block went back as the server's reasoning field, the call as text in the answer.
    const assistant = server.requests[1]!.body.messages.find((m: { role: string }) => m.role === "assistant");
    expect(assistant.reasoning_content).toBe("The add function is probably wrong.");
    expect(assistant.content).toContain('<tool_call>{"name":"read_file"');
    expect(lastUser(server.requests[3]!.body)).toMatch(
      /<tool_result name="shell">[\s\S]*ok: add\(2, 3\) = 5/,
    );

    const text = all.flatMap((e) =>
      e.kind === "assistant_text_delta" && e.data.channel === "text" ? [e.data.delta] : [],
    );
    const reasoning = all.flatMap((e) =>
      e.kind === "assistant_text_delta" && e.data.channel === "reasoning" ? [e.data.delta] : [],
    );
    expect(text.join("")).not.toMatch(/<\/?tool|<think|\{"name"/);
    expect(reasoning.join("")).toContain("The add function is probably wrong.");
    expect(reasoning.join("")).toContain("The test passed.");
    const calls = all.flatMap((e) => (e.kind === "tool_call_end" ? [[e.data.toolName, e.data.isError]] : []));
    expect(calls).toEqual([
      ["read_file", false],
      ["edit_file", false],
      ["shell", false],
    ]);
    const end = all.find((e) => e.kind === "processing_end");
    expect(end?.kind === "processing_end" && end.data).toMatchObject({ reason: "completed", toolRounds: 3 });
    const answer = all.filter((e) => e.kind === "assistant_text_end").at(-1);
    expect(answer?.kind === "assistant_text_end" && answer.data.text).toContain("node test.js` passes");
  });

  it("finishes the task when every call has a quirk: fences without tags, broken JSON, a bare object, one unreadable reply", async () => {
    await repoWithBug();
    localModel([
      // A ```json fence without <tool_call> tags, with a trailing comma and Python True.
      () =>
        streamed(
          'Reading the code.\n```json\n{"name": "read_file", "arguments": {"path": "src/math.js",}, "verbose": True}\n```',
        ),
      // A reply meant as a call that cannot be read.
      () =>
        streamed(
          '```tool_call\n{"name": "edit_file", "arguments": {"file_path" "src/math.js" "old_string"}}\n```',
        ),
      // Told what was wrong, it tries again: single quotes, unquoted keys and a comment.
      (body) =>
        lastUser(body).includes("could not be read")
          ? streamed(
              "```tool_call\n{name: 'edit_file', // fixing the operator\n arguments: {file_path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;'}}\n```",
            )
          : streamed("I was not told about the broken call."),
      // A reply that is nothing but the call object, with a raw newline in a string.
      () =>
        streamed(
          '{"name": "write_file", "arguments": {"file_path": "NOTES.md", "content": "add fixed\nrun node test.js\n"}}',
        ),
      () => streamed('```json\n{"name": "shell", "arguments": {"command": "node test.js"}}\n```'),
      (body) =>
        lastUser(body).includes("ok: add(2, 3) = 5")
          ? streamed("Fixed add in src/math.js; node test.js passes.")
          : streamed("The test still fails."),
    ]);
    const { session: s, events } = session("prompted");
    await s.submit("The test in test.js fails. Find the bug and fix it.");
    await s.close();
    const all: SessionEvent[] = await events;

    expect(await readFile(path.join(dir, "src/math.js"), "utf8")).toContain("return a + b;");
    expect(await readFile(path.join(dir, "NOTES.md"), "utf8")).toBe("add fixed\nrun node test.js\n");
    const calls = all.flatMap((e) => (e.kind === "tool_call_end" ? [[e.data.toolName, e.data.isError]] : []));
    expect(calls).toEqual([
      ["read_file", false],
      ["edit_file", true],
      ["edit_file", false],
      ["write_file", false],
      ["shell", false],
    ]);
    const text = all.flatMap((e) =>
      e.kind === "assistant_text_delta" && e.data.channel === "text" ? [e.data.delta] : [],
    );
    expect(text.join("")).not.toContain("```");
    const end = all.find((e) => e.kind === "processing_end");
    expect(end?.kind === "processing_end" && end.data).toMatchObject({ reason: "completed", toolRounds: 5 });
  });

  it("ends the run as an error, not an answer, when a call cannot be read twice in a row", async () => {
    await repoWithBug();
    const broken = () => streamed('```json\n{"name": "shell", "arguments": {"command": "ls" 1 2}}\n```');
    localModel([broken, broken, () => streamed("never asked")]);
    const { session: s, events } = session("prompted");
    await s.submit("List the files.");
    await s.close();
    const all: SessionEvent[] = await events;
    expect(server.requests).toHaveLength(2);
    expect(lastUser(server.requests[1]!.body)).toContain("could not be read");
    const error = all.find((e) => e.kind === "error");
    expect(error?.kind === "error" && error.data).toMatchObject({
      errorName: "UnreadableToolCallError",
      fatal: false,
    });
    const end = all.find((e) => e.kind === "processing_end");
    expect(end?.kind === "processing_end" && end.data.reason).toBe("error");
  });

  it("in native mode sends tools, which this server refuses, so prompted mode is the way to use it", async () => {
    localModel([() => streamed("unreachable")]);
    const { session: s, events } = session("native");
    await s.submit("hello");
    await s.close();
    const all = await events;
    expect(
      server.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name),
    ).toEqual([
      "read_file",
      "write_file",
      "edit_file",
      "shell",
      "shell_output",
      "shell_input",
      "shell_kill",
      "grep",
      "glob",
      "list_dir",
    ]);
    const error = all.find((e) => e.kind === "error");
    expect(error?.kind === "error" && error.data.message).toContain("does not support tools");
  });
});
