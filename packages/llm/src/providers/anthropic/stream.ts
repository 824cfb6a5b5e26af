import { parseToolArguments, StreamAccumulator } from "../../stream/index.js";
import type {
  Citation,
  FinishReason,
  RateLimitInfo,
  StreamEvent,
  Usage,
  Warning,
  WebSearchData,
  WebSearchResult,
} from "../../types/index.js";

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
  const server = wire.server_tool_use as Record<string, unknown> | null | undefined;
  const webSearches = count(server?.web_search_requests);
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(reasoningTokens !== undefined && { reasoningTokens }),
    ...(cacheRead !== undefined && { cacheReadTokens: cacheRead }),
    ...(cacheWrite !== undefined && { cacheWriteTokens: cacheWrite }),
    ...(webSearches !== undefined && { webSearches }),
    raw: wire,
  };
}

type Block =
  | { kind: "text"; id: string }
  | { kind: "tool"; id: string; name: string; args: string }
  | { kind: "thinking"; id: string; text: string; signature: string }
  /** A server_tool_use block (the provider runs the tool); its input streams like a tool call's. */
  | { kind: "server"; block: WireEvent; args: string }
  | { kind: "other" };

/** A web_search_result_location citation in our terms, the wire object kept to go back. */
export function citationFrom(raw: WireEvent): Citation {
  return {
    url: String(raw.url ?? ""),
    ...(typeof raw.title === "string" && { title: raw.title }),
    ...(typeof raw.cited_text === "string" && { citedText: raw.cited_text }),
    provider: PROVIDER,
    raw,
  };
}

/** The web search of a server_tool_use block, and of its web_search_tool_result when it came. */
function webSearchFrom(call: WireEvent, result?: WireEvent): WebSearchData {
  const query = call.input?.query;
  const content = result?.content;
  const results: WebSearchResult[] = Array.isArray(content)
    ? content
        .filter((r: WireEvent) => r?.type === "web_search_result")
        .map((r: WireEvent) => ({
          url: String(r.url ?? ""),
          ...(typeof r.title === "string" && { title: r.title }),
          ...(typeof r.page_age === "string" && { pageAge: r.page_age }),
        }))
    : [];
  const error =
    !Array.isArray(content) && content?.error_code !== undefined ? String(content.error_code) : undefined;
  return {
    id: String(call.id),
    provider: PROVIDER,
    queries: typeof query === "string" ? [query] : [],
    results,
    status: result === undefined ? "in_progress" : error !== undefined ? "failed" : "completed",
    ...(error !== undefined && { error }),
    raw: result === undefined ? [call] : [call, result],
  };
}

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
  /** Web search calls by id, waiting for their result block. */
  private readonly searches = new Map<string, WireEvent>();
  /** True once message_stop arrived and `finish` was emitted. */
  finished = false;

  constructor(
    private readonly rateLimit?: RateLimitInfo,
    private readonly warnings: readonly Warning[] = [],
  ) {}

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
        const citations: WireEvent[] = Array.isArray(block.citations) ? block.citations : [];
        return [
          { type: "text_start", textId: id },
          ...(text !== "" ? [{ type: "text_delta" as const, textId: id, delta: text }] : []),
          ...citations.map((c) => ({ type: "citation" as const, textId: id, citation: citationFrom(c) })),
        ];
      }
      case "server_tool_use": {
        const input = block.input;
        const given = input && typeof input === "object" && Object.keys(input).length > 0;
        this.blocks.set(index, { kind: "server", block, args: given ? JSON.stringify(input) : "" });
        return [];
      }
      case "web_search_tool_result": {
        this.blocks.set(index, { kind: "other" });
        const call = this.searches.get(String(block.tool_use_id));
        if (call === undefined) return [{ type: "provider_event", raw: block }];
        this.searches.delete(String(block.tool_use_id));
        return [{ type: "web_search", webSearch: webSearchFrom(call, block) }];
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
    if (delta.type === "citations_delta" && block?.kind === "text" && delta.citation !== undefined) {
      return [{ type: "citation", textId: block.id, citation: citationFrom(delta.citation) }];
    }
    if (delta.type === "input_json_delta" && block?.kind === "server") {
      block.args += String(delta.partial_json ?? "");
      return [];
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
      case "server": {
        const call: WireEvent = {
          ...block.block,
          input: parseToolArguments(block.args === "" ? "{}" : block.args),
        };
        // Other server tools (code execution, web fetch) are not modelled: they stay provider events.
        if (call.name !== "web_search") return [{ type: "provider_event", raw: call }];
        this.searches.set(String(call.id), call);
        return [{ type: "web_search", webSearch: webSearchFrom(call) }];
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
      warnings: this.warnings,
      ...(this.rateLimit !== undefined && { rateLimit: this.rateLimit }),
    });
    this.finished = true;
    return { type: "finish", finishReason, usage, response };
  }
}
