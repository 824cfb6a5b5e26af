import { StreamError } from "../../errors.js";
import { StreamAccumulator } from "../../stream/accumulator.js";
import type { RateLimitInfo, StreamEvent, Warning } from "../../types/index.js";
import { errorFromStreamPayload } from "../shared/openai-sdk-errors.js";
import {
  citationsFrom,
  finishFromWire,
  itemRef,
  searchCount,
  thinkingFromItem,
  toolCallFromItem,
  usageFromWire,
  type WireOutputItem,
  type WireResponse,
  webSearchFromItem,
  wireRaw,
} from "./response.js";

const PROVIDER = "openai";

/** A Responses API stream event, as far as we read it. */
export interface WireStreamEvent {
  readonly type: string;
  readonly response?: WireResponse;
  readonly item?: WireOutputItem;
  readonly item_id?: string;
  readonly content_index?: number;
  readonly summary_index?: number;
  readonly delta?: string;
  readonly code?: string | null;
  readonly message?: string;
}

/**
 * Translates Responses API stream events into ours and ends with `finish`, whose response is
 * built by a StreamAccumulator from the very events yielded. `response.failed` and `error`
 * events throw; a stream that ends before `response.completed` throws StreamError.
 */
export async function* translateResponsesStream(
  source: AsyncIterable<WireStreamEvent>,
  extra: { warnings: readonly Warning[]; rateLimit: RateLimitInfo | undefined },
): AsyncGenerator<StreamEvent> {
  const acc = new StreamAccumulator(PROVIDER);
  const openText = new Map<string, Set<string>>();
  const callIdByItem = new Map<string, string>();
  const summariesSeen = new Map<string, number>();
  function* emit(...events: StreamEvent[]): Generator<StreamEvent> {
    for (const e of events) {
      acc.process(e);
      yield e;
    }
  }

  for await (const event of source) {
    switch (event.type) {
      case "response.created":
        yield* emit({
          type: "stream_start",
          ...(event.response?.id !== undefined && { id: event.response.id }),
          ...(event.response?.model !== undefined && { model: event.response.model }),
        });
        break;
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const itemId = event.item_id ?? "";
        const textId = `${itemId}:${event.content_index ?? 0}`;
        const open = openText.get(itemId) ?? new Set<string>();
        openText.set(itemId, open);
        if (!open.has(textId)) {
          open.add(textId);
          yield* emit({ type: "text_start", textId });
        }
        if (event.delta) yield* emit({ type: "text_delta", textId, delta: event.delta });
        break;
      }
      case "response.output_item.added": {
        const item = event.item;
        if (item?.type === "function_call") {
          const call = toolCallFromItem(item);
          if (item.id !== undefined) callIdByItem.set(item.id, call.id);
          yield* emit({ type: "tool_call_start", id: call.id, name: call.name });
        } else if (item?.type === "reasoning" && item.id !== undefined) {
          yield* emit({ type: "reasoning_start", reasoningId: item.id });
        }
        break;
      }
      case "response.function_call_arguments.delta": {
        const id = callIdByItem.get(event.item_id ?? "");
        if (id !== undefined && event.delta)
          yield* emit({ type: "tool_call_delta", id, argumentsDelta: event.delta });
        break;
      }
      case "response.reasoning_summary_text.delta": {
        const reasoningId = event.item_id ?? "";
        const index = event.summary_index ?? 0;
        const last = summariesSeen.get(reasoningId);
        // Summaries are joined with a blank line, as in the completed response.
        const sep = last !== undefined && last !== index ? "\n\n" : "";
        summariesSeen.set(reasoningId, index);
        if (event.delta || sep)
          yield* emit({ type: "reasoning_delta", reasoningId, delta: sep + (event.delta ?? "") });
        break;
      }
      case "response.output_item.done": {
        const item = event.item;
        if (item?.type === "message") {
          const itemId = item.id ?? "";
          const ref = itemRef(item);
          const end = (textId: string): StreamEvent => ({
            type: "text_end",
            textId,
            ...(ref !== undefined && { item: ref }),
          });
          const open = openText.get(itemId);
          // Citations come whole with the finished item, before its text segments end.
          if (open !== undefined) {
            for (const [index, c] of (item.content ?? []).entries()) {
              const textId = `${itemId}:${index}`;
              if (!open.has(textId)) continue;
              for (const citation of citationsFrom(c.annotations))
                yield* emit({ type: "citation", textId, citation });
            }
          }
          if (open === undefined) {
            // Servers that send no deltas still send the finished item; its text must not be lost.
            for (const [index, c] of (item.content ?? []).entries()) {
              const text = c.type === "refusal" ? c.refusal : c.text;
              if (typeof text !== "string" || text === "") continue;
              const textId = `${itemId}:${index}`;
              yield* emit({ type: "text_start", textId }, { type: "text_delta", textId, delta: text });
              for (const citation of citationsFrom(c.annotations))
                yield* emit({ type: "citation", textId, citation });
              yield* emit(end(textId));
            }
          }
          for (const textId of open ?? []) yield* emit(end(textId));
          openText.delete(itemId);
        } else if (item?.type === "function_call") {
          yield* emit({ type: "tool_call_end", toolCall: toolCallFromItem(item) });
        } else if (item?.type === "web_search_call") {
          yield* emit({ type: "web_search", webSearch: webSearchFromItem(item) });
        } else if (item?.type === "reasoning" && item.id !== undefined) {
          yield* emit({ type: "reasoning_end", reasoningId: item.id, thinking: thinkingFromItem(item) });
        }
        break;
      }
      case "response.completed":
      case "response.incomplete": {
        const wire = event.response ?? {};
        const finishReason = finishFromWire(wire);
        const usage = usageFromWire(wire.usage, searchCount(wire));
        const response = acc.response({
          id: wire.id ?? "",
          model: wire.model ?? "",
          provider: PROVIDER,
          finishReason,
          usage,
          raw: wireRaw(wire),
          warnings: extra.warnings,
          ...(extra.rateLimit !== undefined && { rateLimit: extra.rateLimit }),
        });
        yield* emit({ type: "finish", finishReason, usage, response });
        return;
      }
      case "response.failed":
        throw errorFromStreamPayload(PROVIDER, event.response?.error ?? { message: "the response failed" });
      case "error":
        throw errorFromStreamPayload(PROVIDER, { code: event.code, message: event.message });
      default:
        break;
    }
  }
  throw new StreamError("openai: the stream ended before response.completed", { provider: PROVIDER });
}
