import { parseToolArguments, StreamAccumulator } from "../../stream/index.js";
import type { FinishReason, RateLimitInfo, StreamEvent, Usage } from "../../types/index.js";

const PROVIDER = "anthropic";

/** The wire events we read; unknown event and block types pass through as provider events. */
// biome-ignore lint/suspicious/noExplicitAny: wire JSON is checked field by field below
export type WireEvent = { readonly type: string; readonly [key: string]: any };

const FINISH_REASONS: Readonly<Record<string, FinishReason["reason"]>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
  pause_turn: "other",
};

/** Maps a stop_reason to our finish reason, keeping the raw value. */
export function finishReasonFrom(stopReason: string | null | undefined): FinishReason {
  if (stopReason === null || stopReason === undefined) return { reason: "other" };
  return { reason: FINISH_REASONS[stopReason] ?? "other", raw: stopReason };
}

const count = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/**
 * Our usage from the wire usage. inputTokens counts cached tokens too (input_tokens +
 * cache_read_input_tokens + cache_creation_input_tokens), as the other providers' counts do,
 * so it measures how full the context is. reasoningTokens is output_tokens_details.thinking_tokens
 * when reported, else estimated as ceil(thinking characters / 4) when the response has thinking.
 */
export function usageFrom(wire: Record<string, unknown>, thinkingChars: number): Usage {
  const cacheRead = count(wire.cache_read_input_tokens);
  const cacheWrite = count(wire.cache_creation_input_tokens);
  const inputTokens = (count(wire.input_tokens) ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const outputTokens = count(wire.output_tokens) ?? 0;
  const details = wire.output_tokens_details as Record<string, unknown> | null | undefined;
  const reported = count(details?.thinking_tokens);
  const reasoningTokens = reported ?? (thinkingChars > 0 ? Math.ceil(thinkingChars / 4) : undefined);
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(reasoningTokens !== undefined && { reasoningTokens }),
    ...(cacheRead !== undefined && { cacheReadTokens: cacheRead }),
    ...(cacheWrite !== undefined && { cacheWriteTokens: cacheWrite }),
    raw: wire,
  };
}

type Block =
  | { kind: "text"; id: string }
  | { kind: "tool"; id: string; name: string; args: string }
  | { kind: "thinking"; id: string; text: string; signature: string }
  | { kind: "other" };

/**
 * Translates Messages API stream events into ours, one wire event at a time. Every event it
 * emits also goes through a StreamAccumulator, whose response becomes the `finish` event's, so
 * a streamed response and a completed one are built by the same code.
 */
export class StreamTranslator {
  private readonly acc = new StreamAccumulator(PROVIDER);
  private readonly blocks = new Map<number, Block>();
  private usage: Record<string, unknown> = {};
  private stopReason: string | null | undefined;
  private thinkingChars = 0;
  private id = "";
  private model = "";
  /** True once message_stop arrived and `finish` was emitted. */
  finished = false;

  constructor(private readonly rateLimit?: RateLimitInfo) {}

  /** The events for one wire event (often one, sometimes none or two). */
  push(event: WireEvent): StreamEvent[] {
    const out = this.translate(event);
    for (const e of out) this.acc.process(e);
    return out;
  }

  private mergeUsage(wire: unknown): void {
    if (typeof wire !== "object" || wire === null) return;
    for (const [k, v] of Object.entries(wire)) if (v !== null && v !== undefined) this.usage[k] = v;
  }

  private translate(event: WireEvent): StreamEvent[] {
    switch (event.type) {
      case "message_start": {
        const message = event.message ?? {};
        this.id = String(message.id ?? "");
        this.model = String(message.model ?? "");
        this.mergeUsage(message.usage);
        return [{ type: "stream_start", id: this.id, model: this.model }];
      }
      case "content_block_start":
        return this.startBlock(Number(event.index), event.content_block ?? {});
      case "content_block_delta":
        return this.delta(Number(event.index), event.delta ?? {});
      case "content_block_stop":
        return this.stopBlock(Number(event.index));
      case "message_delta":
        if (event.delta?.stop_reason !== undefined) this.stopReason = event.delta.stop_reason;
        this.mergeUsage(event.usage);
        return [];
      case "message_stop":
        return [this.finish()];
      case "ping":
        return [];
      default:
        return [{ type: "provider_event", raw: event }];
    }
  }

  private startBlock(index: number, block: WireEvent): StreamEvent[] {
    const id = String(index);
    switch (block.type) {
      case "text": {
        this.blocks.set(index, { kind: "text", id });
        const text = typeof block.text === "string" ? block.text : "";
        return [
          { type: "text_start", textId: id },
          ...(text !== "" ? [{ type: "text_delta" as const, textId: id, delta: text }] : []),
        ];
      }
      case "tool_use": {
        // Input normally streams as input_json_delta; a non-empty input here is a complete one.
        const input = block.input;
        const given = input && typeof input === "object" && Object.keys(input).length > 0;
        const args = given ? JSON.stringify(input) : "";
        this.blocks.set(index, { kind: "tool", id: String(block.id), name: String(block.name), args });
        return [
          { type: "tool_call_start", id: String(block.id), name: String(block.name) },
          ...(given
            ? [{ type: "tool_call_delta" as const, id: String(block.id), argumentsDelta: args }]
            : []),
        ];
      }
      case "thinking": {
        const text = typeof block.thinking === "string" ? block.thinking : "";
        const signature = typeof block.signature === "string" ? block.signature : "";
        this.blocks.set(index, { kind: "thinking", id, text, signature });
        this.thinkingChars += text.length;
        return [
          { type: "reasoning_start", reasoningId: id },
          ...(text !== "" ? [{ type: "reasoning_delta" as const, reasoningId: id, delta: text }] : []),
        ];
      }
      case "redacted_thinking":
        this.blocks.set(index, { kind: "other" });
        return [{ type: "redacted_reasoning", data: String(block.data) }];
      default:
        this.blocks.set(index, { kind: "other" });
        return [{ type: "provider_event", raw: block }];
    }
  }

  private delta(index: number, delta: WireEvent): StreamEvent[] {
    const block = this.blocks.get(index);
    if (delta.type === "text_delta" && block?.kind === "text") {
      return [{ type: "text_delta", textId: block.id, delta: String(delta.text) }];
    }
    if (delta.type === "input_json_delta" && block?.kind === "tool") {
      const piece = String(delta.partial_json ?? "");
      block.args += piece;
      return piece === "" ? [] : [{ type: "tool_call_delta", id: block.id, argumentsDelta: piece }];
    }
    if (delta.type === "thinking_delta" && block?.kind === "thinking") {
      const piece = String(delta.thinking);
      block.text += piece;
      this.thinkingChars += piece.length;
      return [{ type: "reasoning_delta", reasoningId: block.id, delta: piece }];
    }
    if (delta.type === "signature_delta" && block?.kind === "thinking") {
      block.signature += String(delta.signature);
      return [];
    }
    return [{ type: "provider_event", raw: { index, delta } }];
  }

  private stopBlock(index: number): StreamEvent[] {
    const block = this.blocks.get(index);
    switch (block?.kind) {
      case "text":
        return [{ type: "text_end", textId: block.id }];
      case "tool": {
        const raw = block.args === "" ? "{}" : block.args;
        return [
          {
            type: "tool_call_end",
            toolCall: {
              id: block.id,
              name: block.name,
              arguments: parseToolArguments(raw),
              rawArguments: raw,
            },
          },
        ];
      }
      case "thinking":
        return [
          {
            type: "reasoning_end",
            reasoningId: block.id,
            thinking: {
              text: block.text,
              ...(block.signature !== "" && { signature: block.signature }),
              provider: PROVIDER,
            },
          },
        ];
      default:
        return [];
    }
  }

  private finish(): StreamEvent {
    const finishReason = finishReasonFrom(this.stopReason);
    const usage = usageFrom(this.usage, this.thinkingChars);
    const response = this.acc.response({
      id: this.id,
      model: this.model,
      provider: PROVIDER,
      finishReason,
      usage,
      ...(this.rateLimit !== undefined && { rateLimit: this.rateLimit }),
    });
    this.finished = true;
    return { type: "finish", finishReason, usage, response };
  }
}
