import { StreamError } from "../../errors.js";
import { parseToolArguments, StreamAccumulator } from "../../stream/accumulator.js";
import type { RateLimitInfo, StreamEvent, Usage, Warning } from "../../types/index.js";
import { PROVIDER } from "./request.js";
import {
  chatFinish,
  chatUsage,
  mergeReasoningDetails,
  REASONING_ID,
  reasoningOf,
  TEXT_ID,
  type WireChatCompletion,
} from "./response.js";

interface PendingCall {
  id: string;
  name: string;
  args: string;
  started: boolean;
}

/**
 * Where a tool-call delta without `index` belongs (some servers omit it): the call with its id,
 * a new call when the id is new, else the call being streamed.
 */
function indexWithoutOne(calls: ReadonlyMap<number, PendingCall>, id: string | undefined): number {
  if (id !== undefined) {
    for (const [index, call] of calls) if (call.id === id) return index;
    return calls.size;
  }
  return Math.max(0, calls.size - 1);
}

/**
 * Translates Chat Completions chunks into our events. Tool-call deltas are keyed by `index`
 * (id and name come with the first delta of an index); usage may come in a final chunk with no
 * choices, so `finish` is sent when the stream ends, and only if a finish_reason arrived.
 */
export async function* translateChatStream(
  source: AsyncIterable<WireChatCompletion>,
  extra: { warnings: readonly Warning[]; rateLimit: RateLimitInfo | undefined },
): AsyncGenerator<StreamEvent> {
  const acc = new StreamAccumulator(PROVIDER);
  function* emit(...events: StreamEvent[]): Generator<StreamEvent> {
    for (const e of events) {
      acc.process(e);
      yield e;
    }
  }
  let started = false;
  let id = "";
  let model = "";
  let reasoning: string | undefined;
  const details: Record<string, unknown>[] = [];
  let textOpen = false;
  const calls = new Map<number, PendingCall>();
  let finishRaw: string | undefined;
  let usage: Usage | undefined;

  function* endReasoning(): Generator<StreamEvent> {
    if (reasoning === undefined) return;
    yield* emit({
      type: "reasoning_end",
      reasoningId: REASONING_ID,
      thinking: {
        text: reasoning,
        provider: PROVIDER,
        id: REASONING_ID,
        ...(details.length > 0 && { details: [...details] }),
      },
    });
    reasoning = undefined;
  }

  for await (const chunk of source) {
    if (!started) {
      started = true;
      id = chunk.id ?? "";
      model = chunk.model ?? "";
      yield* emit({
        type: "stream_start",
        ...(chunk.id && { id: chunk.id }),
        ...(chunk.model && { model: chunk.model }),
      });
    }
    if (chunk.usage) usage = chatUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (choice === undefined) continue;
    const delta = choice.delta;
    const thought = reasoningOf(delta);
    if (delta?.reasoning_details && delta.reasoning_details.length > 0) {
      mergeReasoningDetails(details, delta.reasoning_details);
      if (reasoning === undefined) {
        reasoning = "";
        yield* emit({ type: "reasoning_start", reasoningId: REASONING_ID });
      }
    }
    if (thought) {
      if (reasoning === undefined) {
        reasoning = "";
        yield* emit({ type: "reasoning_start", reasoningId: REASONING_ID });
      }
      reasoning += thought;
      yield* emit({ type: "reasoning_delta", reasoningId: REASONING_ID, delta: thought });
    }
    if (delta?.content) {
      yield* endReasoning();
      if (!textOpen) {
        textOpen = true;
        yield* emit({ type: "text_start", textId: TEXT_ID });
      }
      yield* emit({ type: "text_delta", textId: TEXT_ID, delta: delta.content });
    }
    for (const d of delta?.tool_calls ?? []) {
      yield* endReasoning();
      const index = d.index ?? indexWithoutOne(calls, d.id);
      let call = calls.get(index);
      if (call === undefined) {
        call = { id: d.id ?? `call_${index}`, name: "", args: "", started: false };
        calls.set(index, call);
      }
      // The name comes whole in the first delta; servers that repeat it later must not double it.
      if (d.function?.name && call.name === "") call.name = d.function.name;
      const argsDelta = d.function?.arguments ?? "";
      if (!call.started && call.name !== "") {
        call.started = true;
        yield* emit({ type: "tool_call_start", id: call.id, name: call.name });
        if (call.args !== "")
          yield* emit({ type: "tool_call_delta", id: call.id, argumentsDelta: call.args });
      }
      call.args += argsDelta;
      if (call.started && argsDelta !== "")
        yield* emit({ type: "tool_call_delta", id: call.id, argumentsDelta: argsDelta });
    }
    if (choice.finish_reason) finishRaw = choice.finish_reason;
  }

  if (finishRaw === undefined) {
    throw new StreamError(`${PROVIDER}: the stream ended without a finish_reason`, { provider: PROVIDER });
  }
  yield* endReasoning();
  if (textOpen) yield* emit({ type: "text_end", textId: TEXT_ID });
  for (const index of [...calls.keys()].sort((a, b) => a - b)) {
    const call = calls.get(index)!;
    yield* emit({
      type: "tool_call_end",
      toolCall: {
        id: call.id,
        name: call.name,
        arguments: parseToolArguments(call.args),
        rawArguments: call.args,
        type: "function",
      },
    });
  }
  const finishReason = chatFinish(finishRaw, calls.size > 0);
  const finalUsage = usage ?? chatUsage(undefined);
  const response = acc.response({
    id,
    model,
    provider: PROVIDER,
    finishReason,
    usage: finalUsage,
    warnings: extra.warnings,
    ...(extra.rateLimit !== undefined && { rateLimit: extra.rateLimit }),
  });
  yield* emit({ type: "finish", finishReason, usage: finalUsage, response });
}
