import { randomUUID } from "node:crypto";
import type {
  GenerateContentResponse,
  GenerateContentResponseUsageMetadata,
  GroundingMetadata,
  Part,
} from "@google/genai";
import { ContentFilterError, StreamError } from "../../errors.js";
import { StreamAccumulator } from "../../stream/accumulator.js";
import type {
  FinishReason,
  FinishReasonKind,
  RateLimitInfo,
  Response,
  StreamEvent,
  ThinkingData,
  ToolCallData,
  Usage,
  Warning,
  WebSearchData,
} from "../../types/index.js";
import { EMPTY_USAGE } from "../../types/index.js";
import { PROVIDER } from "./request.js";

const FINISH: Readonly<Record<string, FinishReasonKind>> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content_filter",
  RECITATION: "content_filter",
  BLOCKLIST: "content_filter",
  PROHIBITED_CONTENT: "content_filter",
  SPII: "content_filter",
  IMAGE_SAFETY: "content_filter",
  IMAGE_PROHIBITED_CONTENT: "content_filter",
  // The model produced a call we cannot run; the spec's errata suggest content_filter, but nothing
  // was filtered: it is the model's error, and the loop should see it as one.
  MALFORMED_FUNCTION_CALL: "error",
  UNEXPECTED_TOOL_CALL: "error",
  TOO_MANY_TOOL_CALLS: "error",
  IMAGE_RECITATION: "content_filter",
  // The answer is not finished and the model should be asked to go on, as after MAX_TOKENS.
  CONTINUATION: "length",
  LANGUAGE: "other",
  OTHER: "other",
  FINISH_REASON_UNSPECIFIED: "other",
};

/** Maps Gemini's finishReason; STOP with function calls present becomes tool_calls. */
export function finishReasonFor(raw: string | undefined, hasToolCalls: boolean): FinishReason {
  if (raw === undefined) return { reason: hasToolCalls ? "tool_calls" : "stop" };
  const reason = FINISH[raw] ?? "other";
  return { reason: reason === "stop" && hasToolCalls ? "tool_calls" : reason, raw };
}

/**
 * Maps usageMetadata. Thoughts are billed as output, so outputTokens counts candidates plus
 * thoughts (as OpenAI's output_tokens includes reasoning) and reasoningTokens tells them apart.
 */
export function usageFrom(meta: GenerateContentResponseUsageMetadata | undefined): Usage {
  if (meta === undefined) return EMPTY_USAGE;
  const input = meta.promptTokenCount ?? 0;
  const thoughts = meta.thoughtsTokenCount;
  const output = (meta.candidatesTokenCount ?? 0) + (thoughts ?? 0);
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: meta.totalTokenCount ?? input + output,
    raw: meta,
  };
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  if (meta.cachedContentTokenCount !== undefined) usage.cacheReadTokens = meta.cachedContentTokenCount;
  return usage;
}

/** Throws ContentFilterError when Gemini refused the prompt itself (no candidate at all). */
export function checkPromptBlocked(chunk: GenerateContentResponse): void {
  const reason = chunk.promptFeedback?.blockReason;
  if (reason === undefined || (chunk.candidates?.length ?? 0) > 0) return;
  const detail = chunk.promptFeedback?.blockReasonMessage;
  throw new ContentFilterError(`gemini blocked the prompt: ${reason}${detail ? ` (${detail})` : ""}`, {
    provider: PROVIDER,
    errorCode: String(reason),
    raw: chunk,
  });
}

/**
 * Google Search grounding as a web search: the queries Gemini ran and the pages it grounded on.
 * Nothing of it goes back to Gemini (the API takes no grounding in the history).
 */
export function webSearchFrom(meta: GroundingMetadata, id: string): WebSearchData {
  return {
    id,
    provider: PROVIDER,
    queries: [...(meta.webSearchQueries ?? [])],
    results: (meta.groundingChunks ?? []).flatMap((c) =>
      c.web?.uri !== undefined
        ? [{ url: c.web.uri, ...(c.web.title !== undefined && { title: c.web.title }) }]
        : [],
    ),
    status: "completed",
    raw: [meta],
  };
}

/** Strips the SDK's transport bookkeeping so `raw` is the JSON the server sent. */
function rawOf(chunk: GenerateContentResponse): unknown {
  const { sdkHttpResponse: _ignored, ...rest } = chunk as GenerateContentResponse & Record<string, unknown>;
  return rest;
}

/**
 * Turns Gemini response chunks (one for generateContent, many for the SSE stream) into unified
 * stream events, and folds those same events into the final Response, so that complete() and
 * stream() cannot disagree.
 */
export class GeminiEventTranslator {
  private readonly acc = new StreamAccumulator(PROVIDER);
  private started = false;
  private counter = 0;
  private text?: string;
  private reasoning?: { id: string; text: string; signature?: string };
  private hasToolCalls = false;
  private finishRaw?: string;
  private usageMeta?: GenerateContentResponseUsageMetadata;
  private id?: string;
  private modelVersion?: string;
  private lastRaw?: unknown;
  private grounding?: GroundingMetadata;
  private lastText?: string;

  constructor(
    private readonly model: string,
    private readonly warnings: readonly Warning[] = [],
  ) {}

  /** Events for one chunk, in wire order. */
  *chunk(chunk: GenerateContentResponse): Generator<StreamEvent> {
    checkPromptBlocked(chunk);
    this.lastRaw = rawOf(chunk);
    if (chunk.responseId) this.id ??= chunk.responseId;
    if (chunk.modelVersion) this.modelVersion ??= chunk.modelVersion;
    if (chunk.usageMetadata) this.usageMeta = chunk.usageMetadata;
    if (!this.started) {
      this.started = true;
      yield* this.emit({
        type: "stream_start",
        ...(this.id !== undefined && { id: this.id }),
        model: this.modelVersion ?? this.model,
      });
    }
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) yield* this.part(part);
    // Streams repeat or complete the grounding in later chunks; the last one is the whole of it.
    if (candidate?.groundingMetadata !== undefined) this.grounding = candidate.groundingMetadata;
    if (candidate?.finishReason !== undefined) {
      this.finishRaw = String(candidate.finishReason);
      yield* this.closeAll();
    }
  }

  /** The closing `finish` event; StreamError when the server never said it was done. */
  *finish(rateLimit?: RateLimitInfo): Generator<StreamEvent> {
    if (this.finishRaw === undefined) {
      throw new StreamError("gemini stream ended without a finishReason", { provider: PROVIDER });
    }
    yield* this.closeAll();
    yield* this.groundingEvents();
    const finishReason = finishReasonFor(this.finishRaw, this.hasToolCalls);
    const usage = usageFrom(this.usageMeta);
    const response: Response = this.acc.response({
      id: this.id ?? `resp_${randomUUID()}`,
      model: this.modelVersion ?? this.model,
      provider: PROVIDER,
      finishReason,
      usage,
      raw: this.lastRaw,
      warnings: this.warnings,
      ...(rateLimit !== undefined && { rateLimit }),
    });
    yield* this.emit({ type: "finish", finishReason, usage, response });
  }

  /** The response built so far (after finish(): the final one). */
  response(): Response {
    return this.acc.response();
  }

  /**
   * The search Gemini grounded the answer on, and its supports as citations of the answer's last
   * text segment (supports index the whole answer text, which our segments split).
   */
  private *groundingEvents(): Generator<StreamEvent> {
    const meta = this.grounding;
    if (meta === undefined || (meta.webSearchQueries === undefined && meta.groundingChunks === undefined))
      return;
    yield* this.emit({
      type: "web_search",
      webSearch: webSearchFrom(meta, `search_${this.id ?? this.counter}`),
    });
    const textId = this.lastText;
    if (textId === undefined) return;
    const chunks = meta.groundingChunks ?? [];
    for (const support of meta.groundingSupports ?? []) {
      for (const index of support.groundingChunkIndices ?? []) {
        const web = chunks[index]?.web;
        if (web?.uri === undefined) continue;
        yield* this.emit({
          type: "citation",
          textId,
          citation: {
            url: web.uri,
            ...(web.title !== undefined && { title: web.title }),
            ...(support.segment?.text !== undefined && { citedText: support.segment.text }),
            provider: PROVIDER,
          },
        });
      }
    }
  }

  private *emit(event: StreamEvent): Generator<StreamEvent> {
    this.acc.process(event);
    yield event;
  }

  private *part(part: Part): Generator<StreamEvent> {
    if (part.functionCall !== undefined) {
      yield* this.closeAll();
      this.hasToolCalls = true;
      const call = part.functionCall;
      const toolCall: ToolCallData = {
        id: call.id ?? `call_${randomUUID()}`,
        name: call.name ?? "",
        arguments: call.args ?? {},
        ...(part.thoughtSignature !== undefined && { thoughtSignature: part.thoughtSignature }),
      };
      yield* this.emit({ type: "tool_call_start", id: toolCall.id, name: toolCall.name });
      yield* this.emit({ type: "tool_call_end", toolCall });
      return;
    }
    // A signature may come on a part of its own, without text (often the last of a stream).
    const signature = part.thoughtSignature;
    const text = typeof part.text === "string" ? part.text : "";
    if (typeof part.text !== "string" && signature === undefined) return;
    if (part.thought === true) {
      yield* this.closeText();
      if (this.reasoning === undefined) {
        this.reasoning = { id: `r${this.counter++}`, text: "" };
        yield* this.emit({ type: "reasoning_start", reasoningId: this.reasoning.id });
      }
      if (text !== "") {
        this.reasoning.text += text;
        yield* this.emit({ type: "reasoning_delta", reasoningId: this.reasoning.id, delta: text });
      }
      if (signature !== undefined) {
        // The signature closes the run of thoughts it belongs to; a later one starts another.
        this.reasoning.signature = signature;
        yield* this.closeReasoning();
      }
      return;
    }
    if (text === "" && signature === undefined) return;
    yield* this.closeReasoning();
    if (this.text === undefined) {
      this.text = `t${this.counter++}`;
      this.lastText = this.text;
      yield* this.emit({ type: "text_start", textId: this.text });
    }
    if (text !== "") yield* this.emit({ type: "text_delta", textId: this.text, delta: text });
    // Likewise for text: the part carrying the signature ends the segment that goes back with it.
    if (signature !== undefined) yield* this.closeText(signature);
  }

  private *closeText(thoughtSignature?: string): Generator<StreamEvent> {
    if (this.text === undefined) return;
    const textId = this.text;
    this.text = undefined;
    yield* this.emit({
      type: "text_end",
      textId,
      ...(thoughtSignature !== undefined && { thoughtSignature }),
    });
  }

  private *closeReasoning(): Generator<StreamEvent> {
    if (this.reasoning === undefined) return;
    const { id, text, signature } = this.reasoning;
    this.reasoning = undefined;
    const thinking: ThinkingData = {
      text,
      provider: PROVIDER,
      ...(signature !== undefined && { signature }),
    };
    yield* this.emit({ type: "reasoning_end", reasoningId: id, thinking });
  }

  private *closeAll(): Generator<StreamEvent> {
    yield* this.closeReasoning();
    yield* this.closeText();
  }
}
