import { parseToolArguments } from "../../stream/accumulator.js";
import type {
  Citation,
  ContentPart,
  FinishReason,
  OutputItemRef,
  RateLimitInfo,
  Response,
  ThinkingData,
  ToolCallData,
  Usage,
  Warning,
  WebSearchData,
} from "../../types/index.js";

const PROVIDER = "openai";

/** The parts of a Responses API output item we read; everything else is kept in `raw`. */
export interface WireOutputItem {
  readonly type: string;
  readonly id?: string;
  readonly call_id?: string;
  readonly name?: string;
  readonly arguments?: string;
  readonly content?: readonly {
    readonly type: string;
    readonly text?: string;
    readonly refusal?: string;
    readonly annotations?: readonly WireAnnotation[];
  }[];
  readonly status?: string;
  readonly action?: {
    readonly type?: string;
    readonly query?: string;
    readonly queries?: readonly string[];
    readonly sources?: readonly { readonly type?: string; readonly url?: string }[];
    readonly url?: string | null;
  };
  readonly summary?: readonly { readonly type: string; readonly text?: string }[];
  readonly encrypted_content?: string | null;
  readonly phase?: string | null;
}

/** An output_text annotation; url_citation is the one web search makes. */
export interface WireAnnotation {
  readonly type: string;
  readonly url?: string;
  readonly title?: string;
  readonly start_index?: number;
  readonly end_index?: number;
}

/** The url_citation annotations of an output_text, as citations keeping the wire object. */
export function citationsFrom(annotations: readonly WireAnnotation[] | undefined): Citation[] {
  return (annotations ?? [])
    .filter((a) => a.type === "url_citation" && typeof a.url === "string")
    .map((a) => ({
      url: a.url as string,
      ...(typeof a.title === "string" && { title: a.title }),
      ...(typeof a.start_index === "number" && { startIndex: a.start_index }),
      ...(typeof a.end_index === "number" && { endIndex: a.end_index }),
      provider: PROVIDER,
      raw: a,
    }));
}

/** A web_search_call item as a web search: its queries and the sources it read (when included). */
export function webSearchFromItem(item: WireOutputItem): WebSearchData {
  const action = item.action ?? {};
  const queries = action.queries ?? (typeof action.query === "string" ? [action.query] : []);
  const pages = action.type === "open_page" && typeof action.url === "string" ? [{ url: action.url }] : [];
  const sources = (action.sources ?? []).flatMap((s) => (typeof s.url === "string" ? [{ url: s.url }] : []));
  const failed = item.status === "failed";
  return {
    id: item.id ?? "",
    provider: PROVIDER,
    queries: [...queries],
    results: [...sources, ...pages],
    status: failed ? "failed" : item.status === "completed" ? "completed" : "in_progress",
    ...(failed && { error: "failed" }),
    raw: [item],
  };
}

export interface WireUsage {
  readonly input_tokens?: number;
  readonly output_tokens?: number;
  readonly total_tokens?: number;
  readonly input_tokens_details?: { readonly cached_tokens?: number } | null;
  readonly output_tokens_details?: { readonly reasoning_tokens?: number } | null;
}

/** A Responses API response object, as far as we read it. */
export interface WireResponse {
  readonly id?: string;
  readonly model?: string;
  readonly status?: string;
  readonly output?: readonly WireOutputItem[];
  readonly usage?: WireUsage | null;
  readonly incomplete_details?: { readonly reason?: string } | null;
  readonly error?: { readonly code?: string; readonly message?: string } | null;
}

/** Usage in our terms; reasoning and cached tokens only when reported. */
export function usageFromWire(usage: WireUsage | null | undefined, webSearches = 0): Usage {
  const searched = webSearches > 0 ? { webSearches } : {};
  if (usage === null || usage === undefined)
    return { inputTokens: 0, outputTokens: 0, totalTokens: 0, ...searched };
  const inputTokens = usage.input_tokens ?? 0;
  const outputTokens = usage.output_tokens ?? 0;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  const cached = usage.input_tokens_details?.cached_tokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage.total_tokens ?? inputTokens + outputTokens,
    ...(reasoning !== undefined && { reasoningTokens: reasoning }),
    ...(cached !== undefined && { cacheReadTokens: cached }),
    ...searched,
    raw: usage,
  };
}

/** Finish reason from the response status; function calls make a completed response `tool_calls`. */
export function finishFromWire(response: WireResponse): FinishReason {
  const status = response.status ?? "completed";
  if (status === "completed") {
    const output = response.output ?? [];
    if (output.some((i) => i.type === "function_call")) return { reason: "tool_calls", raw: status };
    // The model declined: its answer is a refusal, which is not a successful finish.
    if (output.some((i) => i.type === "message" && (i.content ?? []).some((c) => c.type === "refusal")))
      return { reason: "content_filter", raw: "refusal" };
    return { reason: "stop", raw: status };
  }
  if (status === "incomplete") {
    const why = response.incomplete_details?.reason;
    if (why === "max_output_tokens") return { reason: "length", raw: why };
    if (why === "content_filter") return { reason: "content_filter", raw: why };
    return { reason: "other", raw: why ?? status };
  }
  if (status === "failed") return { reason: "error", raw: status };
  return { reason: "other", raw: status };
}

/** A function_call item as tool-call data: call_id is the id, arguments parsed, raw text kept. */
export const toolCallFromItem = (item: WireOutputItem): ToolCallData => ({
  id: item.call_id ?? item.id ?? "",
  name: item.name ?? "",
  arguments: parseToolArguments(item.arguments ?? ""),
  rawArguments: item.arguments ?? "",
  type: "function",
});

/** A reasoning item as thinking data: summaries joined, encrypted content as the signature. */
export function thinkingFromItem(item: WireOutputItem): ThinkingData {
  const text = (item.summary ?? []).map((s) => s.text ?? "").join("\n\n");
  return {
    text,
    provider: PROVIDER,
    ...(item.id !== undefined && { id: item.id }),
    ...(typeof item.encrypted_content === "string" && { signature: item.encrypted_content }),
  };
}

/** The identity of an output message, kept on its text so it can be replayed as the same item. */
export function itemRef(item: WireOutputItem): OutputItemRef | undefined {
  if (item.id === undefined) return undefined;
  return {
    provider: PROVIDER,
    id: item.id,
    ...(typeof item.phase === "string" && { phase: item.phase }),
  };
}

/** The content parts of one output item, in order. */
export function partsFromItem(item: WireOutputItem): ContentPart[] {
  switch (item.type) {
    case "message": {
      const ref = itemRef(item);
      return (item.content ?? []).flatMap((c): ContentPart[] => {
        const text = c.type === "refusal" ? c.refusal : c.text;
        const citations = citationsFrom(c.annotations);
        return typeof text === "string" && text !== ""
          ? [
              {
                kind: "text",
                text,
                ...(ref !== undefined && { item: ref }),
                ...(citations.length > 0 && { citations }),
              },
            ]
          : [];
      });
    }
    case "function_call":
      return [{ kind: "tool_call", toolCall: toolCallFromItem(item) }];
    case "reasoning":
      return [{ kind: "thinking", thinking: thinkingFromItem(item) }];
    case "web_search_call":
      return [{ kind: "web_search", webSearch: webSearchFromItem(item) }];
    default:
      return [];
  }
}

/** How many web searches a response ran (one web_search_call item each). */
export const searchCount = (wire: WireResponse): number =>
  (wire.output ?? []).filter((i) => i.type === "web_search_call").length;

/** The wire response without the SDK's convenience `output_text`, so raw is what the server sent. */
export function wireRaw(response: object): unknown {
  const { output_text: _dropped, ...rest } = response as Record<string, unknown>;
  return rest;
}

/** Translates a Responses API response object. */
export function responseFromWire(
  wire: WireResponse,
  extra: { warnings?: readonly Warning[]; rateLimit?: RateLimitInfo | undefined } = {},
): Response {
  return {
    id: wire.id ?? "",
    model: wire.model ?? "",
    provider: PROVIDER,
    message: { role: "assistant", content: (wire.output ?? []).flatMap(partsFromItem) },
    finishReason: finishFromWire(wire),
    usage: usageFromWire(wire.usage, searchCount(wire)),
    raw: wireRaw(wire),
    warnings: extra.warnings ?? [],
    ...(extra.rateLimit !== undefined && { rateLimit: extra.rateLimit }),
  };
}
