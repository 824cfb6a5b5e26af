import type {
  Citation,
  ContentPart,
  FinishReason,
  Message,
  OutputItemRef,
  RateLimitInfo,
  Response,
  StreamEvent,
  ThinkingData,
  ToolCallData,
  Usage,
  Warning,
  WebSearchData,
} from "../types/index.js";
import { EMPTY_USAGE } from "../types/index.js";

type Segment =
  | {
      kind: "text";
      id: string;
      text: string;
      signature?: string;
      item?: OutputItemRef;
      citations?: Citation[];
    }
  | { kind: "search"; data: WebSearchData }
  | { kind: "thinking"; id: string; text: string; done?: ThinkingData }
  | { kind: "redacted"; data: string }
  | { kind: "tool"; id: string; name: string; args: string; done?: ToolCallData };

/** Parses streamed tool arguments; `{}` with the raw text kept when they are not a JSON object. */
export function parseToolArguments(raw: string): Readonly<Record<string, unknown>> {
  if (raw.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export interface ResponseMeta {
  readonly id?: string;
  readonly model?: string;
  readonly provider: string;
  readonly finishReason?: FinishReason;
  readonly usage?: Usage;
  readonly raw?: unknown;
  readonly warnings?: readonly Warning[];
  readonly rateLimit?: RateLimitInfo;
}

/**
 * Builds a Response from stream events, in the order the segments started. Adapters feed their
 * own events through one to build the `finish` response, so a streamed response and a completed
 * one cannot drift apart; hosts use one to show a partial response.
 */
export class StreamAccumulator {
  private readonly segments: Segment[] = [];
  private readonly byId = new Map<string, Segment>();
  private id = "";
  private model = "";
  private finished?: Response;

  constructor(private readonly provider = "") {}

  /** Folds one event into the partial response. */
  process(event: StreamEvent): void {
    switch (event.type) {
      case "stream_start":
        if (event.id) this.id = event.id;
        if (event.model) this.model = event.model;
        return;
      case "text_start":
        this.open(`t:${event.textId}`, { kind: "text", id: event.textId, text: "" });
        return;
      case "text_end": {
        const seg = this.byId.get(`t:${event.textId}`);
        if (seg?.kind === "text" && event.thoughtSignature !== undefined)
          seg.signature = event.thoughtSignature;
        if (seg?.kind === "text" && event.item !== undefined) seg.item = event.item;
        return;
      }
      case "text_delta": {
        const seg =
          this.byId.get(`t:${event.textId}`) ??
          this.open(`t:${event.textId}`, { kind: "text", id: event.textId, text: "" });
        if (seg.kind === "text") seg.text += event.delta;
        return;
      }
      case "reasoning_start":
        this.open(`r:${event.reasoningId}`, { kind: "thinking", id: event.reasoningId, text: "" });
        return;
      case "reasoning_delta": {
        const seg =
          this.byId.get(`r:${event.reasoningId}`) ??
          this.open(`r:${event.reasoningId}`, { kind: "thinking", id: event.reasoningId, text: "" });
        if (seg.kind === "thinking") seg.text += event.delta;
        return;
      }
      case "reasoning_end": {
        const seg =
          this.byId.get(`r:${event.reasoningId}`) ??
          this.open(`r:${event.reasoningId}`, { kind: "thinking", id: event.reasoningId, text: "" });
        if (seg.kind === "thinking") seg.done = event.thinking;
        return;
      }
      case "redacted_reasoning":
        this.segments.push({ kind: "redacted", data: event.data });
        return;
      case "tool_call_start":
        this.open(`c:${event.id}`, { kind: "tool", id: event.id, name: event.name, args: "" });
        return;
      case "tool_call_delta": {
        const seg = this.byId.get(`c:${event.id}`);
        if (seg?.kind === "tool") seg.args += event.argumentsDelta;
        return;
      }
      case "tool_call_end": {
        const seg =
          this.byId.get(`c:${event.toolCall.id}`) ??
          this.open(`c:${event.toolCall.id}`, {
            kind: "tool",
            id: event.toolCall.id,
            name: event.toolCall.name,
            args: "",
          });
        if (seg.kind === "tool") seg.done = event.toolCall;
        return;
      }
      case "web_search": {
        const seg = this.byId.get(`w:${event.webSearch.id}`);
        if (seg?.kind === "search") seg.data = event.webSearch;
        else this.open(`w:${event.webSearch.id}`, { kind: "search", data: event.webSearch });
        return;
      }
      case "citation": {
        const seg =
          this.byId.get(`t:${event.textId}`) ??
          this.open(`t:${event.textId}`, { kind: "text", id: event.textId, text: "" });
        if (seg.kind === "text") seg.citations = [...(seg.citations ?? []), event.citation];
        return;
      }
      case "finish":
        this.finished = event.response;
        return;
      default:
        return;
    }
  }

  /** The assistant message accumulated so far. */
  message(): Message {
    const content: ContentPart[] = [];
    for (const seg of this.segments) {
      if (seg.kind === "text") {
        // An empty part still matters when it carries a signature that must go back.
        if (seg.signature !== undefined || seg.text !== "") {
          content.push({
            kind: "text",
            text: seg.text,
            ...(seg.signature !== undefined && { thoughtSignature: seg.signature }),
            ...(seg.item !== undefined && { item: seg.item }),
            ...(seg.citations !== undefined && { citations: seg.citations }),
          });
        }
      } else if (seg.kind === "search") {
        content.push({ kind: "web_search", webSearch: seg.data });
      } else if (seg.kind === "thinking") {
        const thinking: ThinkingData = seg.done ?? { text: seg.text };
        content.push({ kind: "thinking", thinking });
      } else if (seg.kind === "redacted") {
        content.push({ kind: "redacted_thinking", data: seg.data, provider: this.provider });
      } else {
        const toolCall: ToolCallData = seg.done ?? {
          id: seg.id,
          name: seg.name,
          arguments: parseToolArguments(seg.args),
          rawArguments: seg.args,
        };
        content.push({ kind: "tool_call", toolCall });
      }
    }
    return { role: "assistant", content };
  }

  /** The response from `finish` if it arrived, else one built from what was seen, completed with meta. */
  response(meta?: ResponseMeta): Response {
    if (this.finished && meta === undefined) return this.finished;
    const message = this.message();
    const hasCalls = message.content.some((p) => p.kind === "tool_call");
    return {
      id: meta?.id ?? this.id,
      model: meta?.model ?? this.model,
      provider: meta?.provider ?? this.provider,
      message,
      finishReason: meta?.finishReason ?? (hasCalls ? { reason: "tool_calls" } : { reason: "stop" }),
      usage: meta?.usage ?? EMPTY_USAGE,
      warnings: meta?.warnings ?? [],
      ...(meta?.raw !== undefined && { raw: meta.raw }),
      ...(meta?.rateLimit !== undefined && { rateLimit: meta.rateLimit }),
    };
  }

  private open(key: string, seg: Segment): Segment {
    this.segments.push(seg);
    this.byId.set(key, seg);
    return seg;
  }
}
