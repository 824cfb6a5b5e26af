import {
  AbortError,
  type ContentPart,
  type Request,
  type Response,
  type StreamEvent,
  type Usage,
} from "@attractor/llm";

/** One scripted model reply. */
export type ScriptedReply =
  | {
      readonly text?: string;
      readonly reasoning?: string;
      readonly toolCalls?: readonly {
        readonly name: string;
        readonly args?: Record<string, unknown>;
        readonly id?: string;
      }[];
      readonly usage?: Partial<Usage>;
    }
  /** The call fails with this error (thrown by the iterator, as adapters do). */
  | { readonly error: Error }
  /** The stream starts and then never finishes until the request is aborted. */
  | { readonly hang: true };

export type Script = (request: Request, callIndex: number) => ScriptedReply;

/** A client whose model is a function: records requests and streams the replies as real events. */
export function scriptedClient(script: Script | readonly ScriptedReply[]) {
  const requests: Request[] = [];
  const fn: Script =
    typeof script === "function" ? script : (_r, i) => script[i] ?? { text: "(script exhausted)" };
  return {
    requests,
    stream(request: Request): AsyncIterable<StreamEvent> {
      const index = requests.length;
      requests.push(request);
      return replay(fn(request, index), request, index);
    },
  };
}

async function* replay(reply: ScriptedReply, request: Request, index: number): AsyncGenerator<StreamEvent> {
  await Promise.resolve();
  if ("error" in reply) throw reply.error;
  yield { type: "stream_start", id: `resp_${index}`, model: request.model };
  if ("hang" in reply) {
    await new Promise<void>((_, reject) => {
      if (request.signal?.aborted) reject(new AbortError("aborted"));
      request.signal?.addEventListener("abort", () => reject(new AbortError("aborted")), { once: true });
    });
    return;
  }
  const parts: ContentPart[] = [];
  if (reply.reasoning) {
    yield { type: "reasoning_start", reasoningId: "r" };
    yield { type: "reasoning_delta", reasoningId: "r", delta: reply.reasoning };
    const thinking = { text: reply.reasoning, signature: "sig" };
    yield { type: "reasoning_end", reasoningId: "r", thinking };
    parts.push({ kind: "thinking", thinking });
  }
  if (reply.text) {
    yield { type: "text_start", textId: "t" };
    const half = Math.ceil(reply.text.length / 2);
    yield { type: "text_delta", textId: "t", delta: reply.text.slice(0, half) };
    yield { type: "text_delta", textId: "t", delta: reply.text.slice(half) };
    yield { type: "text_end", textId: "t" };
    parts.push({ kind: "text", text: reply.text });
  }
  (reply.toolCalls ?? []).forEach((c, i) => {
    parts.push({
      kind: "tool_call",
      toolCall: { id: c.id ?? `call_${index}_${i}`, name: c.name, arguments: c.args ?? {} },
    });
  });
  for (const p of parts) {
    if (p.kind !== "tool_call") continue;
    yield { type: "tool_call_start", id: p.toolCall.id, name: p.toolCall.name };
    yield { type: "tool_call_end", toolCall: p.toolCall };
  }
  const usage: Usage = {
    inputTokens: reply.usage?.inputTokens ?? 0,
    outputTokens: reply.usage?.outputTokens ?? 0,
    totalTokens: (reply.usage?.inputTokens ?? 0) + (reply.usage?.outputTokens ?? 0),
  };
  const finishReason = { reason: parts.some((p) => p.kind === "tool_call") ? "tool_calls" : "stop" } as const;
  const response: Response = {
    id: `resp_${index}`,
    model: request.model,
    provider: request.provider ?? "scripted",
    message: { role: "assistant", content: parts },
    finishReason,
    usage,
    warnings: [],
  };
  yield { type: "finish", finishReason, usage, response };
}
