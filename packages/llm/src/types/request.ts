import type { Message } from "./message.js";

/** A JSON Schema object; tool parameters must have root type "object". */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface ToolDefinition {
  /** [a-zA-Z][a-zA-Z0-9_-]*, at most 64 characters. */
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

export type ToolChoice =
  | { readonly mode: "auto" }
  | { readonly mode: "none" }
  | { readonly mode: "required" }
  | { readonly mode: "named"; readonly toolName: string };

export type ResponseFormat =
  | { readonly type: "text" }
  | { readonly type: "json" }
  | {
      readonly type: "json_schema";
      readonly schema: JsonSchema;
      readonly name?: string;
      readonly strict?: boolean;
    };

/** "low" | "medium" | "high" everywhere; providers may accept more (minimal, xhigh). Undefined = provider default. */
export type ReasoningEffort = "minimal" | "low" | "medium" | "high" | "xhigh";

export interface TimeoutConfig {
  /**
   * Longest wait for a new TCP (and TLS) connection to the server, ms (default 10 000); a call that
   * reuses a pooled connection does not wait. Exceeded, the call fails with ConnectTimeoutError, a
   * retryable NetworkError. undici checks it on a coarse timer, so it fires up to about a second
   * late.
   */
  readonly connectMs?: number;
  /** Whole request for complete(), ms (default 120 000). */
  readonly requestMs?: number;
  /** Longest silence between two stream chunks, ms (default 30 000). */
  readonly streamReadMs?: number;
}

export interface Request {
  readonly model: string;
  readonly messages: readonly Message[];
  /** Adapter to route to; the client's default when absent. */
  readonly provider?: string;
  readonly tools?: readonly ToolDefinition[];
  /** Defaults to auto when tools are present. */
  readonly toolChoice?: ToolChoice;
  readonly responseFormat?: ResponseFormat;
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly stopSequences?: readonly string[];
  readonly reasoningEffort?: ReasoningEffort;
  readonly metadata?: Readonly<Record<string, string>>;
  /**
   * A stable key shared by the requests of one conversation, so the provider routes them to the
   * same prompt cache (OpenAI Responses: `prompt_cache_key`); others ignore it.
   */
  readonly cacheKey?: string;
  /** Keyed by provider name (`openai`, `anthropic`, `gemini`, `openai-compatible`); others ignore it. */
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly signal?: AbortSignal;
  readonly timeout?: TimeoutConfig;
}

export const DEFAULT_TIMEOUTS: Required<TimeoutConfig> = {
  connectMs: 10_000,
  requestMs: 120_000,
  streamReadMs: 30_000,
};
