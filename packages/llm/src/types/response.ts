import type { ToolCallData } from "./content.js";
import type { Message } from "./message.js";

export type FinishReasonKind = "stop" | "length" | "tool_calls" | "content_filter" | "error" | "other";

export interface FinishReason {
  readonly reason: FinishReasonKind;
  /** The provider's own value. */
  readonly raw?: string;
}

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly reasoningTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  /** Web searches the provider ran (Anthropic's reported count; OpenAI's search calls). */
  readonly webSearches?: number;
  readonly raw?: unknown;
}

export interface Warning {
  readonly message: string;
  readonly code?: string;
}

export interface RateLimitInfo {
  readonly requestsRemaining?: number;
  readonly requestsLimit?: number;
  readonly tokensRemaining?: number;
  readonly tokensLimit?: number;
  readonly resetAt?: string;
}

export interface Response {
  readonly id: string;
  readonly model: string;
  readonly provider: string;
  readonly message: Message;
  readonly finishReason: FinishReason;
  readonly usage: Usage;
  readonly raw?: unknown;
  readonly warnings: readonly Warning[];
  readonly rateLimit?: RateLimitInfo;
}

export const EMPTY_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

const addOptional = (a?: number, b?: number): number | undefined =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);

/** Sum of two usages; optional fields stay undefined only when both are. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: {
    -readonly [K in keyof Usage]: Usage[K];
  } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  const reasoning = addOptional(a.reasoningTokens, b.reasoningTokens);
  const cacheRead = addOptional(a.cacheReadTokens, b.cacheReadTokens);
  const cacheWrite = addOptional(a.cacheWriteTokens, b.cacheWriteTokens);
  const searches = addOptional(a.webSearches, b.webSearches);
  if (reasoning !== undefined) sum.reasoningTokens = reasoning;
  if (cacheRead !== undefined) sum.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) sum.cacheWriteTokens = cacheWrite;
  if (searches !== undefined) sum.webSearches = searches;
  return sum;
}

/** The concatenated text of a response's text parts. */
export const responseText = (response: Response): string =>
  response.message.content.map((p) => (p.kind === "text" ? p.text : "")).join("");

/** The tool calls a response asks for, in order. */
export const responseToolCalls = (response: Response): readonly ToolCallData[] =>
  response.message.content.flatMap((p) => (p.kind === "tool_call" ? [p.toolCall] : []));

/** The concatenated reasoning text of a response, or undefined when it has none. */
export function responseReasoning(response: Response): string | undefined {
  const texts = response.message.content.flatMap((p) => (p.kind === "thinking" ? [p.thinking.text] : []));
  return texts.length === 0 ? undefined : texts.join("");
}
