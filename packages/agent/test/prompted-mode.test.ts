import type { Message, Request, Response, StreamEvent } from "@attractor/llm";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicProfile } from "../src/profiles/anthropic/index.js";
import { createProviderProfile } from "../src/profiles/create-profile.js";
import { createGeminiProfile } from "../src/profiles/gemini/index.js";
import { createOpenAIProfile } from "../src/profiles/openai/index.js";
import { createOpenAICompatibleProfile } from "../src/profiles/openai-compatible/index.js";
import { OPENAI_COMPATIBLE_BASE_PROMPT } from "../src/profiles/openai-compatible/prompt.js";
import { applyTextProtocol, rewriteResponse } from "../src/prompted/text-protocol.js";
import { Session } from "../src/session/session.js";
import { nodeEnvironment } from "../src/testing/index.js";
import type { SessionEvent } from "../src/types/events.js";
import type { ProviderProfile, ToolCallMode } from "../src/types/profile.js";
import type { RegisteredTool } from "../src/types/tool.js";
import { collect, mapRegistry, tempDir } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

/** One model reply: the text as streamed, delta by delta, and an optional native reasoning text. */
interface Reply {
  readonly deltas: readonly string[];
  readonly reasoning?: string;
}

/** A client whose replies stream text in exactly the given deltas, as a local server would. */
function textClient(script: (request: Request, index: number) => Reply) {
  const requests: Request[] = [];
  return {
    requests,
    async *stream(request: Request): AsyncGenerator<StreamEvent> {
      const index = requests.length;
      requests.push(request);
      const reply = script(request, index);
      await Promise.resolve();
      yield { type: "stream_start", id: `r${index}`, model: request.model };
      if (reply.reasoning) {
        yield { type: "reasoning_start", reasoningId: "r" };
        yield { type: "reasoning_delta", reasoningId: "r", delta: reply.reasoning };
        yield { type: "reasoning_end", reasoningId: "r", thinking: { text: reply.reasoning } };
      }
      yield { type: "text_start", textId: "t" };
      for (const delta of reply.deltas) yield { type: "text_delta", textId: "t", delta };
      yield { type: "text_end", textId: "t" };
      const text = reply.deltas.join("");
      const response: Response = {
        id: `r${index}`,
        model: request.model,
        provider: "openai-compatible",
        message: {
          role: "assistant",
          content: [
            ...(reply.reasoning ? [{ kind: "thinking" as const, thinking: { text: reply.reasoning } }] : []),
            { kind: "text" as const, text },
          ],
        },
        finishReason: { reason: "stop", raw: "stop" },
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        warnings: [],
      };
      yield { type: "finish", finishReason: response.finishReason, usage: response.usage, response };
    },
  };
}

/** Cuts a text into pieces of `size` characters. */
const pieces = (text: string, size = 5): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

const ran: { name: string; args: Record<string, unknown> }[] = [];
const tool = (
  name: string,
  properties: Record<string, unknown>,
  required: string[] = [],
): RegisteredTool => ({
  definition: {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties, required },
  },
  executor: async (args) => {
    ran.push({ name, args: { ...args } });
    return `${name} says ${JSON.stringify(args)}`;
  },
});
const tools = [
  tool("read_file", { file_path: { type: "string" } }, ["file_path"]),
  tool("shell", { command: { type: "string" } }, ["command"]),
];

function profile(mode: ToolCallMode, thinkTags = false): ProviderProfile {
  return createProviderProfile({
    id: "local",
    provider: "openai-compatible",
    model: "small-model",
    basePrompt: "You are a test agent.",
    toolRegistry: mapRegistry(tools),
    projectDocFiles: [],
    contextWindowSize: 100_000,
    toolCallMode: mode,
    thinkTags,
  });
}

function run(
  script: Parameters<typeof textClient>[0],
  opts: {
    mode?: ToolCallMode;
    thinkTags?: boolean;
    config?: ConstructorParameters<typeof Session>[0]["config"];
  } = {},
) {
  ran.length = 0;
  const client = textClient(script);
  const session = new Session({
    profile: profile(opts.mode ?? "prompted", opts.thinkTags),
    environment: nodeEnvironment(dir),
    client,
    ...(opts.config && { config: opts.config }),
  });
  const events = collect(session.events());
  return { session, client, events };
}

const textOf = (m: Message): string => m.content.map((p) => (p.kind === "text" ? p.text : "")).join("");
const deltas = (events: readonly SessionEvent[], channel: "text" | "reasoning") =>
  events.flatMap((e) =>
    e.kind === "assistant_text_delta" && e.data.channel === channel ? [e.data.delta] : [],
  );

describe("prompted tool calling in the loop", () => {
  it("describes tools in the prompt, sends none natively, runs parsed calls and answers with a user message", async () => {
    const reply =
      'Let me read it.\n<tool_call>{"name": "read_file", "arguments": {"path": "src/a.ts"}}</tool_call>';
    const { session, client, events } = run((_r, i) =>
      i === 0 ? { deltas: pieces(reply, 4) } : { deltas: ["The file is fine."] },
    );
    await session.submit("check src/a.ts");
    await session.close();
    const all = await events;

    const first = client.requests[0]!;
    expect(first.tools).toBeUndefined();
    expect(first.toolChoice).toBeUndefined();
    const system = textOf(first.messages[0]!);
    expect(system).toContain("# Calling tools");
    expect(system).toContain("### read_file");
    expect(system).toContain('"file_path"');

    // The path alias reached the tool as its own parameter.
    expect(ran).toEqual([{ name: "read_file", args: { file_path: "src/a.ts" } }]);
    const shown = deltas(all, "text").join("");
    expect(shown).not.toContain("<tool");
    expect(shown).toContain("Let me read it.");
    const end = all.find((e) => e.kind === "assistant_text_end");
    expect(end?.kind === "assistant_text_end" && end.data.text).toBe("Let me read it.");
    expect(end?.kind === "assistant_text_end" && end.data.toolCalls.map((c) => c.name)).toEqual([
      "read_file",
    ]);
    expect(end?.kind === "assistant_text_end" && end.data.finishReason).toBe("tool_calls");
    const kinds = all.map((e) => e.kind);
    expect(kinds.indexOf("tool_call_start")).toBeGreaterThan(kinds.indexOf("assistant_text_end"));
    expect(kinds).toContain("tool_call_end");

    const second = client.requests[1]!;
    expect(second.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(textOf(second.messages[2]!)).toContain(
      '<tool_call>{"name":"read_file","arguments":{"file_path":"src/a.ts"}}</tool_call>',
    );
    expect(second.messages[2]!.content.some((p) => p.kind === "tool_call")).toBe(false);
    const results = textOf(second.messages[3]!);
    expect(results).toMatch(/^<tool_result name="read_file">\nread_file says/);
    expect(session.history.at(-1)).toMatchObject({ kind: "assistant", content: "The file is fine." });
  });

  it("runs several calls from one reply in order, including one inside a code fence", async () => {
    const reply = [
      "Two steps:",
      '<tool_call>{"tool": "shell", "params": {"command": "ls"}}</tool_call>',
      "```xml",
      '<tool_call>{"name": "read_file", "file": "b.txt"}</tool_call>',
      "```",
    ].join("\n");
    const { session, client, events } = run((_r, i) =>
      i === 0 ? { deltas: pieces(reply, 3) } : { deltas: ["done"] },
    );
    await session.submit("go");
    await session.close();
    const all = await events;
    expect(ran).toEqual([
      { name: "shell", args: { command: "ls" } },
      { name: "read_file", args: { file_path: "b.txt" } },
    ]);
    const end = all.find((e) => e.kind === "assistant_text_end");
    expect(end?.kind === "assistant_text_end" && end.data.text).toBe("Two steps:");
    const results = textOf(client.requests[1]!.messages.at(-1)!);
    expect(results.indexOf('<tool_result name="shell">')).toBeLessThan(
      results.indexOf('<tool_result name="read_file">'),
    );
  });

  it("reports a call cut off mid-value to the model without running it, and goes on", async () => {
    const cut = '<tool_call>{"name": "shell", "arguments": {"command": "rm -rf buil';
    const { session, client, events } = run((_r, i) =>
      i === 0
        ? { deltas: pieces(cut, 7) }
        : i === 1
          ? { deltas: ['<tool_call>{"name": "shell", "arguments": {"command": "echo ok"}}</tool_call>'] }
          : { deltas: ["finished"] },
    );
    await session.submit("clean up");
    await session.close();
    const all = await events;
    expect(ran).toEqual([{ name: "shell", args: { command: "echo ok" } }]);
    const feedback = textOf(client.requests[1]!.messages.at(-1)!);
    expect(feedback).toMatch(/^<tool_error name="shell">/);
    expect(feedback).toContain("cut off in the middle of a value");
    expect(feedback).toContain("Nothing ran");
    // The model sees the block it wrote, so it knows which call failed.
    expect(textOf(client.requests[1]!.messages.at(-2)!)).toContain(cut);
    const ends = all.filter((e) => e.kind === "tool_call_end");
    expect(ends.map((e) => e.kind === "tool_call_end" && e.data.isError)).toEqual([true, false]);
    const end = all.find((e) => e.kind === "processing_end");
    expect(end?.kind === "processing_end" && end.data).toMatchObject({ reason: "completed", toolRounds: 2 });
  });

  it("holds a fenced block back while streaming: a call runs unseen, other JSON is shown as the answer", async () => {
    const call = 'Checking.\n```json\n{"name": "shell", "arguments": {"command": "ls",}}\n```';
    const example = 'Use this config:\n```json\n{"name": "demo", "port": 8080}\n```';
    const { session, events } = run((_r, i) => ({ deltas: pieces(i === 0 ? call : example, 3) }));
    await session.submit("go");
    await session.close();
    const all = await events;
    expect(ran).toEqual([{ name: "shell", args: { command: "ls" } }]);
    const shown = deltas(all, "text").join("");
    expect(shown).toBe(`Checking.\n${example}`);
    const end = all.filter((e) => e.kind === "assistant_text_end").at(-1);
    expect(end?.kind === "assistant_text_end" && end.data.text).toBe(example);
  });

  it("repairs a call cut off between arguments and runs it", async () => {
    const { session } = run((_r, i) =>
      i === 0
        ? { deltas: ['<tool_call>{"name": "shell", "arguments": {"command": "pwd"', ", "] }
        : { deltas: ["ok"] },
    );
    await session.submit("where am I");
    await session.close();
    expect(ran).toEqual([{ name: "shell", args: { command: "pwd" } }]);
  });

  it("keeps the tool-round limit and events as with native calls", async () => {
    const call = '<tool_call>{"name": "shell", "arguments": {"command": "true"}}</tool_call>';
    const { session, events } = run(() => ({ deltas: [call] }), { config: { maxToolRoundsPerInput: 3 } });
    await session.submit("loop");
    await session.close();
    const all = await events;
    expect(ran).toHaveLength(3);
    const limit = all.find((e) => e.kind === "turn_limit");
    expect(limit?.kind === "turn_limit" && limit.data).toMatchObject({
      limit: "max_tool_rounds_per_input",
      value: 3,
    });
  });

  it("treats <think> text as reasoning, split across deltas, and keeps it in history as thinking", async () => {
    const reply = "<think>The user wants a greeting.</think>\n\nHello!";
    const { session, client, events } = run(
      (_r, i) => (i === 0 ? { deltas: pieces(reply, 3) } : { deltas: ["again"] }),
      { mode: "native", thinkTags: true },
    );
    await session.submit("hi");
    await session.submit("more");
    await session.close();
    const all = await events;
    const firstAnswer = all.findIndex((e) => e.kind === "assistant_text_end");
    const before = all.slice(0, firstAnswer);
    expect(deltas(before, "reasoning").join("")).toBe("The user wants a greeting.");
    expect(deltas(before, "text").join("")).toBe("\n\nHello!");
    const end = all[firstAnswer];
    expect(end?.kind === "assistant_text_end" && end.data).toMatchObject({
      text: "Hello!",
      reasoning: "The user wants a greeting.",
    });
    const assistant = client.requests[1]!.messages[2]!;
    expect(assistant.content).toEqual([
      { kind: "thinking", thinking: { text: "The user wants a greeting." } },
      { kind: "text", text: "Hello!" },
    ]);
  });

  it("leaves tool_call markup alone in native mode", async () => {
    const text = 'Example: <tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_call>';
    const { session, client, events } = run(() => ({ deltas: [text] }), { mode: "native" });
    await session.submit("show the syntax");
    await session.close();
    const all = await events;
    expect(ran).toEqual([]);
    expect(deltas(all, "text").join("")).toBe(text);
    expect(client.requests[0]!.tools?.map((t) => t.name)).toEqual(["read_file", "shell"]);
  });
});

describe("toolCallMode on profiles", () => {
  it("is accepted by every profile factory, defaults to native and survives withModel", () => {
    for (const make of [
      createOpenAIProfile,
      createAnthropicProfile,
      createGeminiProfile,
      createOpenAICompatibleProfile,
    ]) {
      expect(make("some-model").toolCallMode).toBe("native");
      const prompted = make("some-model", { toolCallMode: "prompted" });
      expect(prompted.toolCallMode).toBe("prompted");
      expect(prompted.withModel("other-model").toolCallMode).toBe("prompted");
    }
  });

  it("gives OpenAI-compatible servers the core tools, think tags and a concise prompt of their own", () => {
    const local = createOpenAICompatibleProfile("qwen3:8b", { contextWindowSize: 8192 });
    expect(local.provider).toBe("openai-compatible");
    expect(local.toolRegistry.names()).toEqual([
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
    expect(local.thinkTags).toBe(true);
    expect(local.contextWindowSize).toBe(8192);
    expect(local.withModel("llama3.2").contextWindowSize).toBe(8192);
    expect(OPENAI_COMPATIBLE_BASE_PROMPT.length).toBeLessThan(2_000);
  });
});

describe("the text protocol over a stream", () => {
  const callText = (name: string, args: Record<string, unknown>) =>
    `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

  async function readAll(
    deltaList: readonly string[],
    parametersOf?: (name: string) => readonly string[] | undefined,
  ) {
    const text = deltaList.join("");
    async function* source(): AsyncGenerator<StreamEvent> {
      yield { type: "text_start", textId: "t" };
      for (const delta of deltaList) yield { type: "text_delta", textId: "t", delta };
      yield { type: "text_end", textId: "t" };
      const response: Response = {
        id: "x",
        model: "m",
        provider: "p",
        message: { role: "assistant", content: [{ kind: "text", text }] },
        finishReason: { reason: "stop" },
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        warnings: [],
      };
      yield { type: "finish", finishReason: response.finishReason, usage: response.usage, response };
    }
    let n = 0;
    const protocol = {
      toolCalls: true,
      thinkTags: true,
      newCallId: () => `c${n++}`,
      ...(parametersOf !== undefined && { parametersOf }),
    };
    const shown: string[] = [];
    const reasoning: string[] = [];
    let final: Response | undefined;
    for await (const e of applyTextProtocol(source(), protocol)) {
      if (e.type === "text_delta") shown.push(e.delta);
      if (e.type === "reasoning_delta") reasoning.push(e.delta);
      if (e.type === "finish") final = e.response;
    }
    return { shown: shown.join(""), reasoning: reasoning.join(""), final: final! };
  }

  it("shows no markup and finds the same calls however the reply is chunked", async () => {
    const word = fc.constantFrom("Reading", " the", " file", "\n", " now.", " ok", "{", "}", "<", ">");
    const call = fc.record({
      name: fc.constantFrom("read_file", "shell"),
      args: fc.dictionary(fc.constantFrom("file_path", "command", "x"), fc.string({ maxLength: 12 })),
    });
    const segment = fc.oneof(
      word,
      call.map((c) => callText(c.name, c.args)),
      fc.string({ maxLength: 10 }).map((s) => `<think>${s.replace(/</g, "")}</think>`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 8 }),
        fc.array(fc.nat({ max: 9 })),
        async (segs, cuts) => {
          const text = segs.join("");
          const chunks: string[] = [];
          let i = 0;
          for (const c of cuts) {
            if (i >= text.length) break;
            chunks.push(text.slice(i, i + c + 1));
            i += c + 1;
          }
          chunks.push(text.slice(i));
          const chunked = await readAll(chunks);
          const whole = await readAll([text]);
          expect(chunked.shown).not.toContain("<tool_call");
          expect(chunked.shown).not.toContain("</tool_call");
          expect(chunked.shown).not.toContain("<think>");
          expect(chunked.shown).toBe(whole.shown);
          expect(chunked.reasoning).toBe(whole.reasoning);
          expect(chunked.final).toEqual(whole.final);
          const calls = chunked.final.message.content.flatMap((p) =>
            p.kind === "tool_call" ? [p.toolCall] : [],
          );
          expect(calls).toHaveLength(segs.filter((s) => s.startsWith("<tool_call>")).length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads a fenced call and a JSON example the same however the reply is cut", async () => {
    const parametersOf = (name: string) => (name === "shell" ? ["command"] : undefined);
    const text =
      'Run:\n```json\n{"name": "shell", "arguments": {"command": "echo `date` ```"},}\n```\nExample:\n```json\n{"port": 1}\n```';
    const whole = await readAll([text], parametersOf);
    const calls = whole.final.message.content.flatMap((p) => (p.kind === "tool_call" ? [p.toolCall] : []));
    expect(calls.map((c) => c.arguments)).toEqual([{ command: "echo `date` ```" }]);
    expect(whole.shown).toBe('Run:\n\nExample:\n```json\n{"port": 1}\n```');
    for (let cut = 1; cut < text.length; cut++) {
      const chunked = await readAll([text.slice(0, cut), text.slice(cut)], parametersOf);
      expect(chunked.shown).toBe(whole.shown);
      expect(chunked.final).toEqual(whole.final);
    }
  });

  it("recovers reasoning whose opening tag the chat template supplied", () => {
    const response: Response = {
      id: "x",
      model: "m",
      provider: "p",
      message: { role: "assistant", content: [{ kind: "text", text: "I should say hi.</think>Hi!" }] },
      finishReason: { reason: "stop" },
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      warnings: [],
    };
    expect(rewriteResponse(response, { toolCalls: false, thinkTags: true }).message.content).toEqual([
      { kind: "thinking", thinking: { text: "I should say hi." } },
      { kind: "text", text: "Hi!" },
    ]);
  });
});
