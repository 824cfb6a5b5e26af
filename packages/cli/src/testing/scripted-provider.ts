// A scripted model behind a local HTTP server that speaks each provider's real wire protocol
// (Anthropic Messages, OpenAI Responses, Gemini streamGenerateContent, OpenAI-compatible Chat
// Completions), so the CLI runs end to end through its real adapters and SDKs.
import {
  callItem,
  chatUsage,
  chunkFrames,
  frames,
  messageDelta,
  messageItem,
  messageStart,
  type RecordedRequest,
  type Reply,
  responseObject,
  usage as responsesUsage,
  sse,
  startWireServer,
  streamFrames,
  type WireServer,
} from "@attractor/llm/testing";

export type Provider = "anthropic" | "openai" | "gemini" | "openai-compatible";
export const ALL_PROVIDERS: readonly Provider[] = ["anthropic", "openai", "gemini", "openai-compatible"];

/** A tool call the scripted model makes. */
export interface Call {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** One scripted reply: text and/or tool calls, or a raw wire reply (errors, hangs). */
export type Step =
  | {
      readonly text?: string;
      readonly calls?: readonly Call[];
      /** Checked against the tool results of the request; a failure makes the model say so. */
      readonly expect?: (results: readonly string[]) => string | undefined;
      /** Waits this long before answering: a model slow to its first token. */
      readonly delayMs?: number;
    }
  | { readonly raw: Reply }
  /** Chosen from the request itself: for conversations that run at once (a subagent beside its parent). */
  | { readonly route: (request: SeenRequest) => Step };

/** What a request carried, read back from the provider's wire format. */
export interface SeenRequest {
  readonly path: string;
  readonly model: string | undefined;
  /** Tool result texts, in order, over the whole conversation. */
  readonly toolResults: readonly string[];
  /** User message texts, in order. */
  readonly userTexts: readonly string[];
  /** Tool names offered. */
  readonly tools: readonly string[];
  // biome-ignore lint/suspicious/noExplicitAny: tests read raw request bodies freely
  readonly body: any;
}

export interface ScriptedModel {
  readonly server: WireServer;
  readonly provider: Provider;
  /** Requests seen so far, decoded. */
  seen(): SeenRequest[];
  /** Environment variables pointing the provider at this server (keys included). */
  env(): Record<string, string>;
  /** Extra CLI flags the provider needs (openai-compatible: --model). */
  flags(): string[];
  /** Replaces the script; the step counter restarts. */
  script(steps: readonly Step[]): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
let counter = 0;

/** The default model of a provider as the catalog names it (openai-compatible has none). */
export const MODEL: Readonly<Record<Provider, string>> = {
  anthropic: "claude-sonnet-5-5",
  openai: "gpt-6.2-sol",
  gemini: "gemini-3.1-pro-preview",
  "openai-compatible": "qwen3:8b",
};

/** One reply of the scripted model in a provider's wire format: text and/or tool calls. */
export function replyFor(provider: Provider, text: string | undefined, calls: readonly Call[]): Reply {
  const n = ++counter;
  switch (provider) {
    case "anthropic": {
      const events: Json[] = [messageStart({ input_tokens: 120 }, `msg_${n}`)];
      let index = 0;
      if (text) {
        events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
        events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
        events.push({ type: "content_block_stop", index });
        index++;
      }
      for (const [i, c] of calls.entries()) {
        const json = JSON.stringify(c.args);
        const half = Math.ceil(json.length / 2);
        events.push({
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: `toolu_${n}_${i}`, name: c.name, input: {} },
        });
        for (const part of [json.slice(0, half), json.slice(half)])
          events.push({
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: part },
          });
        events.push({ type: "content_block_stop", index });
        index++;
      }
      events.push(messageDelta(calls.length > 0 ? "tool_use" : "end_turn", 30), { type: "message_stop" });
      return { kind: "sse", frames: frames(events), chunking: { mode: "whole" } };
    }
    case "openai": {
      const output: unknown[] = [];
      if (text) output.push(messageItem(`msg_${n}`, text));
      for (const [i, c] of calls.entries())
        output.push(callItem(`fc_${n}_${i}`, `call_${n}_${i}`, c.name, JSON.stringify(c.args)));
      return {
        kind: "sse",
        frames: streamFrames(responseObject(`resp_${n}`, output, responsesUsage(120, 30))),
        chunking: { mode: "whole" },
      };
    }
    case "openai-compatible":
      return {
        kind: "sse",
        frames: chunkFrames({
          id: `chatcmpl-${n}`,
          content: text ?? null,
          calls: calls.map((c, i) => ({ id: `call_${n}_${i}`, name: c.name, args: JSON.stringify(c.args) })),
          finish: calls.length > 0 ? "tool_calls" : "stop",
          usage: chatUsage(120, 30),
        }),
        chunking: { mode: "whole" },
      };
    case "gemini": {
      const parts: Json[] = [];
      if (text) parts.push({ text });
      for (const c of calls) parts.push({ functionCall: { name: c.name, args: c.args } });
      return {
        kind: "sse",
        frames: [
          sse({
            candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
            usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 },
            modelVersion: MODEL.gemini,
            responseId: `resp-${n}`,
          }),
        ],
        chunking: { mode: "whole" },
      };
    }
  }
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? (content as Json[]).map((b) => (typeof b.text === "string" ? b.text : "")).join("")
      : JSON.stringify(content ?? "");

/** Decodes the parts of a request the tests look at. */
export function readRequest(provider: Provider, request: RecordedRequest): SeenRequest {
  const body = request.body ?? {};
  const toolResults: string[] = [];
  const userTexts: string[] = [];
  let tools: string[] = [];
  let model: string | undefined = body.model;
  switch (provider) {
    case "anthropic":
      for (const m of body.messages ?? []) {
        if (m.role !== "user") continue;
        if (typeof m.content === "string") userTexts.push(m.content);
        else
          for (const b of m.content) {
            if (b.type === "text") userTexts.push(b.text);
            if (b.type === "tool_result") toolResults.push(textOf(b.content));
          }
      }
      tools = (body.tools ?? []).map((t: Json) => String(t.name));
      break;
    case "openai":
      for (const item of body.input ?? []) {
        if (item.type === "function_call_output") toolResults.push(String(item.output));
        else if (item.role === "user") userTexts.push(textOf(item.content));
      }
      tools = (body.tools ?? []).map((t: Json) => String(t.name));
      break;
    case "openai-compatible":
      for (const m of body.messages ?? []) {
        if (m.role === "tool") toolResults.push(textOf(m.content));
        if (m.role === "user") userTexts.push(textOf(m.content));
      }
      tools = (body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
      break;
    case "gemini":
      model = /models\/([^:]+):/.exec(request.path)?.[1];
      for (const c of body.contents ?? []) {
        for (const p of c.parts ?? []) {
          if (p.functionResponse) toolResults.push(JSON.stringify(p.functionResponse.response));
          else if (c.role === "user" && typeof p.text === "string") userTexts.push(p.text);
        }
      }
      tools = (body.tools ?? []).flatMap((t: { functionDeclarations?: Json[] }) =>
        (t.functionDeclarations ?? []).map((d) => String(d.name)),
      );
      break;
  }
  return { path: request.path, model, toolResults, userTexts, tools, body };
}

/** Environment variables pointing a provider at a local server (keys included). */
function envFor(provider: Provider, url: string): Record<string, string> {
  switch (provider) {
    case "anthropic":
      return { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: url };
    case "openai":
      return { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${url}/v1` };
    case "gemini":
      return { GEMINI_API_KEY: "gemini-test", GEMINI_BASE_URL: url };
    case "openai-compatible":
      return { OPENAI_COMPATIBLE_BASE_URL: `${url}/v1` };
  }
}

/** Starts a scripted model for a provider. Requests beyond the script get a text reply saying so. */
export async function startScriptedModel(
  provider: Provider,
  steps: readonly Step[] = [],
): Promise<ScriptedModel> {
  let script = [...steps];
  let index = 0;
  const server = await startWireServer((request) => {
    let step = script[index++];
    if (step !== undefined && "route" in step) step = step.route(readRequest(provider, request));
    if (step === undefined) return replyFor(provider, "SCRIPT EXHAUSTED", []);
    if ("raw" in step) return step.raw;
    if ("route" in step) return replyFor(provider, "NESTED ROUTE", []);
    const problem = step.expect?.(readRequest(provider, request).toolResults);
    if (problem !== undefined) return replyFor(provider, `UNEXPECTED: ${problem}`, []);
    const reply = replyFor(provider, step.text, step.calls ?? []);
    if (!step.delayMs) return reply;
    return new Promise<Reply>((resolve) => setTimeout(() => resolve(reply), step.delayMs));
  });
  return {
    server,
    provider,
    seen: () => server.requests.map((r) => readRequest(provider, r)),
    env: () => envFor(provider, server.url),
    flags: () => (provider === "openai-compatible" ? ["--model", MODEL["openai-compatible"]] : []),
    script(next) {
      script = [...next];
      index = 0;
    },
    close: () => server.close(),
  };
}

/**
 * A model whose reply depends on the request rather than its order: for conversations that
 * interleave, such as a subagent working beside its parent. `route` sees each request decoded.
 */
export async function startRoutedModel(
  provider: Provider,
  route: (request: SeenRequest) => Step,
): Promise<ScriptedModel> {
  const server = await startWireServer((request) => {
    const step = route(readRequest(provider, request));
    if ("raw" in step) return step.raw;
    if ("route" in step) return replyFor(provider, "NESTED ROUTE", []);
    return replyFor(provider, step.text, step.calls ?? []);
  });
  return {
    server,
    provider,
    seen: () => server.requests.map((r) => readRequest(provider, r)),
    env: () => envFor(provider, server.url),
    flags: () => (provider === "openai-compatible" ? ["--model", MODEL["openai-compatible"]] : []),
    script() {
      throw new Error("a routed model has no script");
    },
    close: () => server.close(),
  };
}

/** A tool call that replaces `before` by `after` in a file, in the provider's editing tool. */
export function editCall(provider: Provider, path: string, before: string, after: string): Call {
  if (provider === "openai") {
    return {
      name: "apply_patch",
      args: { patch: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${before}\n+${after}\n*** End Patch` },
    };
  }
  return { name: "edit_file", args: { file_path: path, old_string: before, new_string: after } };
}

/** An Anthropic reply calling `name` with arguments given as raw JSON text (for inputs JSON.stringify cannot build). */
export function anthropicRawCall(name: string, json: string): Reply {
  const n = ++counter;
  const events: Json[] = [
    messageStart({ input_tokens: 120 }, `msg_${n}`),
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: `toolu_${n}`, name, input: {} },
    },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: json } },
    { type: "content_block_stop", index: 0 },
    messageDelta("tool_use", 30),
    { type: "message_stop" },
  ];
  return { kind: "sse", frames: frames(events), chunking: { mode: "whole" } };
}
