import {
  type ContentPart,
  type Message,
  type Request,
  StreamAccumulator,
  type StreamEvent,
  systemMessage,
  type Usage,
  userMessage,
  type WebSearchTool,
} from "@attractor/llm";
import { ToolError } from "../shared/tool-errors.js";
import {
  type AnswerSegment,
  passesDomainFilters,
  type WebSearcher,
  type WebSearchFindings,
  type WebSearchQuery,
  type WebSearchSource,
} from "./findings.js";

/** The providers whose API runs a web search tool of its own (Request.providerTools). */
export const PROVIDERS_WITH_WEB_SEARCH: readonly string[] = ["anthropic", "openai", "gemini"];

/** Whether a provider runs web search itself, so modelWebSearcher can use it. */
export function providerRunsWebSearch(provider: string): boolean {
  return PROVIDERS_WITH_WEB_SEARCH.includes(provider);
}

/** Pauses of a long search turn sent back before the search gives up waiting. */
const MAX_PAUSES = 3;

/** Which domain filters each provider's search applies itself. */
const FILTERS: Readonly<Record<string, { allowed: boolean; blocked: boolean; both: boolean }>> = {
  // The Messages API takes either list, not both in one request.
  anthropic: { allowed: true, blocked: true, both: false },
  // The Responses API restricts to domains but cannot exclude any.
  openai: { allowed: true, blocked: false, both: false },
  // Google Search grounding has no domain filters.
  gemini: { allowed: false, blocked: false, both: false },
};

export interface ModelWebSearcherOptions {
  /** The model that searches; a function to follow the session's current model. */
  readonly model: string | (() => string);
  /** The provider the client routes it to; a function to follow the session's. */
  readonly provider: string | (() => string);
  /** The provider's own search options besides domains (Anthropic's maxUses defaults to 5). */
  readonly tool?: Omit<WebSearchTool, "kind" | "allowedDomains" | "blockedDomains">;
  /** Output tokens of the answer (default 2048). */
  readonly maxTokens?: number;
  /** Told what each side request used, so a host can count it with the session's spending. */
  readonly onUsage?: (usage: Usage, model: string) => void;
}

const SYSTEM = [
  "You run web searches for another assistant and report what you find.",
  "Search for the query you are given, then answer it briefly from the results, citing the pages you use.",
  "Keep exact names, versions, dates, commands and numbers as the pages give them. If the results do not answer the query, say so.",
].join(" ");

/** Where the provider's filters fall short, which filters the searcher applies to the results itself. */
function splitFilters(
  provider: string,
  query: WebSearchQuery,
): { sent: Pick<WebSearchTool, "allowedDomains" | "blockedDomains">; afterwards: boolean } {
  const can = FILTERS[provider] ?? { allowed: false, blocked: false, both: false };
  const allowed = query.allowedDomains ?? [];
  const blocked = query.blockedDomains ?? [];
  const sent: { allowedDomains?: readonly string[]; blockedDomains?: readonly string[] } = {};
  if (allowed.length > 0 && can.allowed) sent.allowedDomains = allowed;
  if (blocked.length > 0 && can.blocked && (can.both || sent.allowedDomains === undefined))
    sent.blockedDomains = blocked;
  const afterwards =
    (allowed.length > 0 && sent.allowedDomains === undefined) ||
    (blocked.length > 0 && sent.blockedDomains === undefined);
  return { sent, afterwards };
}

/** The search, its results and the cited answer, read from the side request's response. */
function findingsOf(
  provider: string,
  query: WebSearchQuery,
  parts: readonly ContentPart[],
  afterwards: boolean,
  cut: boolean,
  paused: boolean,
): WebSearchFindings {
  const queries: string[] = [];
  const results: WebSearchSource[] = [];
  const seen = new Set<string>();
  const failures: string[] = [];
  let answer: AnswerSegment[] = [];
  for (const part of parts) {
    if (part.kind === "web_search") {
      queries.push(...part.webSearch.queries);
      if (part.webSearch.status === "failed") failures.push(part.webSearch.error ?? "failed");
      for (const r of part.webSearch.results) {
        if (seen.has(r.url)) continue;
        seen.add(r.url);
        results.push({
          url: r.url,
          ...(r.title !== undefined && { title: r.title }),
          ...(r.pageAge !== undefined && { pageAge: r.pageAge }),
        });
      }
    } else if (part.kind === "text" && part.text !== "") {
      answer.push({
        text: part.text,
        citations: (part.citations ?? []).map(({ raw: _raw, ...citation }) => citation),
      });
    }
  }
  if (queries.length === 0 && results.length === 0 && failures.length === 0)
    throw new ToolError(
      "search_failed",
      `The ${provider} model answered without searching the web, so there are no results to report. Try a more specific query.`,
    );
  if (failures.length > 0 && results.length === 0)
    throw new ToolError("search_failed", `The ${provider} web search failed: ${failures.join(", ")}.`);
  let note: string | undefined;
  let kept = results;
  if (afterwards) {
    // The provider searched everywhere: its answer may draw on any page, so only the results from
    // the domains asked for are given, never the answer.
    kept = results.filter((r) => passesDomainFilters(r, query));
    answer = [];
    note = `The ${provider} search cannot restrict domains as asked, so its results were filtered afterwards and its answer, which may draw on other sites, is left out.`;
  } else if (paused)
    note = `The search was still going after ${MAX_PAUSES} pauses of the provider's turn; these are its results so far.`;
  else if (cut) note = "The answer reached the length limit and is cut short.";
  return {
    backend: provider,
    queries: queries.length > 0 ? queries : [query.query],
    ...(answer.length > 0 && { answer }),
    results: kept,
    ...(note !== undefined && { note }),
  };
}

/**
 * A WebSearcher that asks the model provider's own search (Anthropic's web search tool, the
 * Responses API's `web_search`, Gemini's Google Search grounding) in a side request that carries
 * only that tool and the query, and returns the pages found and the model's cited answer. Domain
 * filters the provider cannot apply are applied to the results, and the answer is then left out.
 */
export function modelWebSearcher(
  client: { stream(request: Request): AsyncIterable<StreamEvent> },
  options: ModelWebSearcherOptions,
): WebSearcher {
  return async (query) => {
    const provider = typeof options.provider === "function" ? options.provider() : options.provider;
    const model = typeof options.model === "function" ? options.model() : options.model;
    if (!providerRunsWebSearch(provider))
      throw new ToolError("unavailable", `The ${provider} provider runs no web search of its own.`);
    const { sent, afterwards } = splitFilters(provider, query);
    const messages: Message[] = [systemMessage(SYSTEM), userMessage(`Search the web for: ${query.query}`)];
    const parts: ContentPart[] = [];
    let cut = false;
    let paused = false;
    // Anthropic may pause a long search turn; sent back as it is, the model goes on.
    for (let round = 0; round <= MAX_PAUSES; round++) {
      const accumulator = new StreamAccumulator(provider);
      const request: Request = {
        model,
        provider,
        messages,
        providerTools: [
          { kind: "web_search", ...(provider === "anthropic" && { maxUses: 5 }), ...options.tool, ...sent },
        ],
        maxTokens: options.maxTokens ?? 2048,
        ...(query.signal !== undefined && { signal: query.signal }),
      };
      try {
        for await (const event of client.stream(request)) accumulator.process(event);
      } catch (error) {
        if (query.signal?.aborted) throw error;
        throw new ToolError(
          "search_failed",
          `The web search request to ${provider} failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
      const response = accumulator.response();
      options.onUsage?.(response.usage, model);
      parts.push(...response.message.content);
      cut = response.finishReason.reason === "length";
      paused = response.finishReason.raw === "pause_turn";
      if (!paused) break;
      messages.push(response.message);
    }
    return findingsOf(provider, query, parts, afterwards, cut, paused);
  };
}
