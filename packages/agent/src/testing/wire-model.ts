// A scripted model behind the real provider adapters: a local HTTP server speaks each provider's
// wire protocol (SSE framing and all), and a provider-neutral script decides the replies from what
// each request says, read back out of that provider's own request format.
import { AnthropicAdapter, Client, GeminiAdapter, OpenAIAdapter } from "@attractor/llm";
import {
  callItem,
  frames,
  messageDelta,
  messageItem,
  messageStart,
  type RecordedRequest,
  type Reply,
  reasoningItem,
  responseObject,
  sse,
  streamFrames,
  usage,
} from "@attractor/llm/testing";
import { createAnthropicProfile } from "../profiles/anthropic/index.js";
import { createGeminiProfile } from "../profiles/gemini/index.js";
import { createOpenAIProfile } from "../profiles/openai/index.js";
import type { ProviderProfile } from "../types/profile.js";

/** One model reply, whatever the provider. */
export interface ModelReply {
  readonly text?: string;
  readonly reasoning?: string;
  readonly calls?: readonly { readonly name: string; readonly args: Record<string, unknown> }[];
}

/** A tool result found in a request, decoded from the provider's format. */
export interface WireToolResult {
  /** The call id; Gemini results without ids are keyed by function name. */
  readonly callId: string;
  readonly output: string;
  readonly isError: boolean;
}

/** What a request carries, read from the provider's wire format. */
export interface WireView {
  readonly system: string;
  /** Text of user-role messages, in order (steering included). */
  readonly userTexts: readonly string[];
  /** Every tool result in the request, in order. */
  readonly toolResults: readonly WireToolResult[];
  /** Names of the tools offered. */
  readonly tools: readonly string[];
  /** The provider's reasoning setting, as sent (effort, budget or level); undefined when absent. */
  readonly reasoning: string | number | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: tests read raw request bodies freely
  readonly body: any;
}

/** One provider: a client with its real adapter, its profile, a request reader and a reply writer. */
export interface WireProvider {
  readonly id: "openai" | "anthropic" | "gemini";
  readonly model: string;
  client(url: string): Client;
  profile(): ProviderProfile;
  read(request: RecordedRequest): WireView;
  reply(reply: ModelReply): Reply;
  /** A tool call that replaces `before` with `after` in a file, in the profile's editing format. */
  edit(filePath: string, relativePath: string, before: string, after: string): ModelReply["calls"] & {};
}

let sequence = 0;
const next = () => ++sequence;
type Json = Record<string, unknown>;
// Whole frames per write: these tests are about the loop, not SSE parsing, and stay fast.
const WHOLE = { mode: "whole" } as const;

const openai: WireProvider = {
  id: "openai",
  model: "gpt-5.2",
  client: (url) =>
    new Client({
      providers: { openai: new OpenAIAdapter({ apiKey: "sk-test", baseUrl: `${url}/v1`, env: {} }) },
    }),
  profile: () => createOpenAIProfile("gpt-5.2"),
  read(request) {
    const body = request.body;
    const items = (body.input ?? []) as Json[];
    const userTexts: string[] = [];
    const toolResults: WireToolResult[] = [];
    for (const item of items) {
      if (item.type === "function_call_output") {
        const output = String(item.output);
        toolResults.push({ callId: String(item.call_id), output, isError: output.startsWith("Error: ") });
      } else if (item.role === "user") {
        const content = item.content;
        if (typeof content === "string") userTexts.push(content);
        else for (const c of content as Json[]) if (c.type === "input_text") userTexts.push(String(c.text));
      }
    }
    return {
      system: String(body.instructions ?? ""),
      userTexts,
      toolResults,
      tools: ((body.tools ?? []) as Json[]).map((t) => String(t.name)),
      reasoning: body.reasoning?.effort,
      body,
    };
  },
  reply(reply) {
    const n = next();
    const output: unknown[] = [];
    if (reply.reasoning) output.push(reasoningItem(`rs_${n}`, [reply.reasoning], `enc_${n}`));
    if (reply.text) output.push(messageItem(`msg_${n}`, reply.text));
    for (const [i, c] of (reply.calls ?? []).entries()) {
      output.push(callItem(`fc_${n}_${i}`, `call_${n}_${i}`, c.name, JSON.stringify(c.args)));
    }
    return {
      kind: "sse",
      frames: streamFrames(responseObject(`resp_${n}`, output, usage(100, 20))),
      chunking: WHOLE,
    };
  },
  edit: (_abs, rel, before, after) => [
    {
      name: "apply_patch",
      args: { patch: `*** Begin Patch\n*** Update File: ${rel}\n@@\n-${before}\n+${after}\n*** End Patch` },
    },
  ],
};

const anthropicText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (content as Json[]).flatMap((b) => (b.type === "text" ? [String(b.text)] : [])).join("");

const anthropic: WireProvider = {
  id: "anthropic",
  model: "claude-opus-4-6",
  client: (url) =>
    new Client({
      providers: { anthropic: new AnthropicAdapter({ apiKey: "sk-ant-test", baseUrl: url, env: {} }) },
    }),
  profile: () => createAnthropicProfile("claude-opus-4-6"),
  read(request) {
    const body = request.body;
    const userTexts: string[] = [];
    const toolResults: WireToolResult[] = [];
    for (const m of body.messages as Json[]) {
      if (m.role !== "user") continue;
      if (typeof m.content === "string") {
        userTexts.push(m.content);
        continue;
      }
      for (const block of m.content as Json[]) {
        if (block.type === "text") userTexts.push(String(block.text));
        if (block.type === "tool_result") {
          toolResults.push({
            callId: String(block.tool_use_id),
            output: anthropicText(block.content),
            isError: block.is_error === true,
          });
        }
      }
    }
    return {
      system: anthropicText(body.system ?? ""),
      userTexts,
      toolResults,
      tools: ((body.tools ?? []) as Json[]).map((t) => String(t.name)),
      // Claude 4.6 and later think adaptively with an effort; older models take a token budget.
      reasoning: body.output_config?.effort ?? body.thinking?.budget_tokens,
      body,
    };
  },
  reply(reply) {
    const n = next();
    const events: Json[] = [messageStart({ input_tokens: 100 }, `msg_${n}`)];
    let index = 0;
    const block = (start: Json, deltas: Json[]) => {
      events.push({ type: "content_block_start", index, content_block: start });
      for (const d of deltas) events.push({ type: "content_block_delta", index, delta: d });
      events.push({ type: "content_block_stop", index });
      index++;
    };
    if (reply.reasoning) {
      block({ type: "thinking", thinking: "", signature: "" }, [
        { type: "thinking_delta", thinking: reply.reasoning },
        { type: "signature_delta", signature: `sig_${n}` },
      ]);
    }
    if (reply.text) block({ type: "text", text: "" }, [{ type: "text_delta", text: reply.text }]);
    (reply.calls ?? []).forEach((c, i) => {
      const json = JSON.stringify(c.args);
      const half = Math.ceil(json.length / 2);
      block({ type: "tool_use", id: `toolu_${n}_${i}`, name: c.name, input: {} }, [
        { type: "input_json_delta", partial_json: json.slice(0, half) },
        { type: "input_json_delta", partial_json: json.slice(half) },
      ]);
    });
    events.push(messageDelta(reply.calls?.length ? "tool_use" : "end_turn", 20), { type: "message_stop" });
    return { kind: "sse", frames: frames(events), chunking: WHOLE };
  },
  edit: (abs, _rel, before, after) => [
    { name: "edit_file", args: { file_path: abs, old_string: before, new_string: after } },
  ],
};

const gemini: WireProvider = {
  id: "gemini",
  model: "gemini-3-flash-preview",
  client: (url) =>
    new Client({ providers: { gemini: new GeminiAdapter({ apiKey: "test-key", baseUrl: url, env: {} }) } }),
  profile: () => createGeminiProfile("gemini-3-flash-preview"),
  read(request) {
    const body = request.body;
    const userTexts: string[] = [];
    const toolResults: WireToolResult[] = [];
    for (const c of (body.contents ?? []) as Json[]) {
      if (c.role !== "user") continue;
      for (const part of c.parts as Json[]) {
        if (typeof part.text === "string") userTexts.push(part.text);
        const fr = part.functionResponse as Json | undefined;
        if (fr) {
          const response = fr.response as Json;
          const isError = response.error !== undefined;
          const value = isError ? response.error : response.result;
          toolResults.push({
            callId: String(fr.id ?? fr.name),
            output: typeof value === "string" ? value : JSON.stringify(value),
            isError,
          });
        }
      }
    }
    const thinking = body.generationConfig?.thinkingConfig;
    return {
      system: ((body.systemInstruction?.parts ?? []) as Json[]).map((p) => String(p.text)).join(""),
      userTexts,
      toolResults,
      tools: ((body.tools ?? []) as Json[]).flatMap((t) =>
        ((t.functionDeclarations ?? []) as Json[]).map((f) => String(f.name)),
      ),
      reasoning: thinking?.thinkingLevel ?? thinking?.thinkingBudget,
      body,
    };
  },
  reply(reply) {
    const n = next();
    const parts: Json[] = [];
    if (reply.reasoning) parts.push({ text: reply.reasoning, thought: true, thoughtSignature: `c2ln${n}` });
    if (reply.text) parts.push({ text: reply.text });
    for (const c of reply.calls ?? []) parts.push({ functionCall: { name: c.name, args: c.args } });
    const chunk = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: "gemini-3-flash-preview",
      responseId: `resp_${n}`,
    };
    return { kind: "sse", frames: [sse(chunk)], chunking: WHOLE };
  },
  edit: (abs, _rel, before, after) => [
    { name: "edit_file", args: { file_path: abs, old_string: before, new_string: after } },
  ],
};

/** The three providers the parity matrix covers. */
export const WIRE_PROVIDERS: readonly WireProvider[] = [openai, anthropic, gemini];
