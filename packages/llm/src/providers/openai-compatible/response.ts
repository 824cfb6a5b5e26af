import { parseToolArguments } from "../../stream/accumulator.js";
import type {
  ContentPart,
  FinishReason,
  RateLimitInfo,
  Response,
  Usage,
  Warning,
} from "../../types/index.js";
import { PROVIDER } from "./request.js";

/** The parts of Chat Completions usage we read. */
export interface WireChatUsage {
  readonly prompt_tokens?: number;
  readonly completion_tokens?: number;
  readonly total_tokens?: number;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number } | null;
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number } | null;
}

export interface WireToolCall {
  readonly index?: number;
  readonly id?: string;
  readonly type?: string;
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

/** A message, or a streamed delta of one. */
export interface WireChatMessage {
  readonly role?: string;
  readonly content?: string | null;
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
  /** OpenRouter: structured reasoning (text, summaries, encrypted blobs) to be sent back as is. */
  readonly reasoning_details?: readonly unknown[] | null;
  readonly tool_calls?: readonly WireToolCall[] | null;
}

export interface WireChatCompletion {
  readonly id?: string;
  readonly model?: string;
  readonly choices?: readonly {
    readonly message?: WireChatMessage;
    readonly delta?: WireChatMessage;
    readonly finish_reason?: string | null;
  }[];
  readonly usage?: WireChatUsage | null;
}

/** The id of the single reasoning segment a Chat Completions message has. */
export const REASONING_ID = "reasoning-0";
/** The id of the single text segment a Chat Completions message has. */
export const TEXT_ID = "text-0";

/** Usage in our terms; reasoning and cached tokens only when the server reports them. */
export function chatUsage(usage: WireChatUsage | null | undefined): Usage {
  if (usage === null || usage === undefined) return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const inputTokens = usage.prompt_tokens ?? 0;
  const outputTokens = usage.completion_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage.total_tokens ?? inputTokens + outputTokens,
    ...(reasoning !== undefined && { reasoningTokens: reasoning }),
    ...(cached !== undefined && { cacheReadTokens: cached }),
    raw: usage,
  };
}

/**
 * Maps finish_reason. Some servers (older Ollama among them) say "stop" while returning tool
 * calls; the calls decide, since the caller runs tools only on `tool_calls`.
 */
export function chatFinish(raw: string | null | undefined, hasCalls: boolean): FinishReason {
  const value = raw ?? "stop";
  switch (value) {
    case "stop":
      return { reason: hasCalls ? "tool_calls" : "stop", raw: value };
    case "length":
      return { reason: "length", raw: value };
    case "tool_calls":
    case "function_call":
      return { reason: "tool_calls", raw: value };
    case "content_filter":
      return { reason: "content_filter", raw: value };
    default:
      return { reason: "other", raw: value };
  }
}

/** The reasoning text a message or delta carries, under either field name servers use. */
export const reasoningOf = (m: WireChatMessage | undefined): string | undefined =>
  m?.reasoning_content ?? m?.reasoning ?? undefined;

/** Content parts in the order a streamed message produces them: thinking, text, tool calls. */
export function chatParts(message: WireChatMessage | undefined): ContentPart[] {
  const parts: ContentPart[] = [];
  const reasoning = reasoningOf(message) ?? "";
  const details = message?.reasoning_details ?? [];
  if (reasoning !== "" || details.length > 0)
    parts.push({
      kind: "thinking",
      thinking: {
        text: reasoning,
        provider: PROVIDER,
        id: REASONING_ID,
        ...(details.length > 0 && { details }),
      },
    });
  if (message?.content) parts.push({ kind: "text", text: message.content });
  (message?.tool_calls ?? []).forEach((call, i) => {
    const rawArguments = call.function?.arguments ?? "";
    parts.push({
      kind: "tool_call",
      toolCall: {
        id: call.id ?? `call_${i}`,
        name: call.function?.name ?? "",
        arguments: parseToolArguments(rawArguments),
        rawArguments,
        type: "function",
      },
    });
  });
  return parts;
}

/** Translates a Chat Completions response. */
export function chatResponseFromWire(
  wire: WireChatCompletion,
  extra: { warnings?: readonly Warning[]; rateLimit?: RateLimitInfo | undefined } = {},
): Response {
  const choice = wire.choices?.[0];
  const content = chatParts(choice?.message);
  return {
    id: wire.id ?? "",
    model: wire.model ?? "",
    provider: PROVIDER,
    message: { role: "assistant", content },
    finishReason: chatFinish(
      choice?.finish_reason,
      content.some((p) => p.kind === "tool_call"),
    ),
    usage: chatUsage(wire.usage),
    raw: wire,
    warnings: extra.warnings ?? [],
    ...(extra.rateLimit !== undefined && { rateLimit: extra.rateLimit }),
  };
}

type Detail = Record<string, unknown>;

/**
 * Folds streamed `reasoning_details` entries into whole ones: entries with the same index are
 * one entry in pieces, whose text-like fields concatenate and whose other fields the later
 * piece sets.
 */
export function mergeReasoningDetails(into: Detail[], pieces: readonly unknown[]): void {
  for (const piece of pieces) {
    if (typeof piece !== "object" || piece === null) continue;
    const p = piece as Detail;
    const index = typeof p.index === "number" ? p.index : undefined;
    const existing = index === undefined ? undefined : into.find((d) => d.index === index);
    if (existing === undefined) {
      into.push({ ...p });
      continue;
    }
    for (const [key, value] of Object.entries(p)) {
      const before = existing[key];
      existing[key] =
        (key === "text" || key === "summary" || key === "data") &&
        typeof before === "string" &&
        typeof value === "string"
          ? before + value
          : value;
    }
  }
}
