import type { Message } from "./message.js";

/** A JSON Schema object; tool parameters must have root type "object". */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface ToolDefinition {
  /** [a-zA-Z][a-zA-Z0-9_-]*, at most 64 characters. */
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/**
 * The provider's own web search (Anthropic `web_search_20250305`, OpenAI Responses `web_search`,
 * Gemini `googleSearch` grounding). An option a provider cannot honour is a warning on the
 * response, except domain restrictions, which it must honour: a request it cannot restrict as
 * asked fails with InvalidRequestError rather than search more widely.
 */
export interface WebSearchTool {
  readonly kind: "web_search";
  /** Most searches per request (Anthropic). */
  readonly maxUses?: number;
  /** Search only these domains (Anthropic, OpenAI). */
  readonly allowedDomains?: readonly string[];
  /** Never search these domains (Anthropic). */
  readonly blockedDomains?: readonly string[];
  /** Where the user is, for local results (Anthropic, OpenAI). */
  readonly userLocation?: {
    readonly city?: string;
    readonly region?: string;
    /** ISO 3166-1 alpha-2. */
    readonly country?: string;
    /** IANA time zone. */
    readonly timezone?: string;
  };
  /** How much found content the model reads (OpenAI). */
  readonly searchContextSize?: "low" | "medium" | "high";
}

/** A tool the provider runs on its side; its calls and results come back as content parts. */
export type ProviderTool = WebSearchTool;

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
  /**
   * Tools the provider runs itself (web search). Adapters without them (OpenAI-compatible servers)
   * refuse the request with InvalidRequestError rather than answer without.
   */
  readonly providerTools?: readonly ProviderTool[];
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
