import type { Citation } from "@attractor/llm";

/** One search as the `web_search` tool asks for it. */
export interface WebSearchQuery {
  readonly query: string;
  /** Only results from these domains (and their subdomains). */
  readonly allowedDomains?: readonly string[];
  /** No results from these domains (and their subdomains). */
  readonly blockedDomains?: readonly string[];
  readonly signal?: AbortSignal;
}

/** A page a search found. */
export interface WebSearchSource {
  readonly url: string;
  readonly title?: string;
  /** A passage of the page, when the backend gives one (SearXNG's `content`). */
  readonly snippet?: string;
  /** How old the page is, as the provider reports it. */
  readonly pageAge?: string;
}

/** A stretch of a provider's answer and the sources it cites for it. */
export interface AnswerSegment {
  readonly text: string;
  readonly citations: readonly Omit<Citation, "raw">[];
}

/** What a search backend found for one query. */
export interface WebSearchFindings {
  /** Who searched: the provider ("anthropic", "openai", "gemini") or the backend ("searxng"). */
  readonly backend: string;
  /** The queries the backend actually ran (a provider's model may rephrase or run several). */
  readonly queries: readonly string[];
  /** The provider model's answer drawn from the results, with its citations; absent for plain result lists. */
  readonly answer?: readonly AnswerSegment[];
  readonly results: readonly WebSearchSource[];
  /** Something the model should know about how the search went (a domain filter applied afterwards). */
  readonly note?: string;
}

/** Runs one search: a provider's own search tool in a side request, or a search service. */
export type WebSearcher = (query: WebSearchQuery) => Promise<WebSearchFindings>;

/** The host of a URL, lower-cased without a final dot; undefined when it does not parse. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/\.+$/, "").toLowerCase();
  } catch {
    return undefined;
  }
}

/** Whether `host` is `domain` or one of its subdomains (`docs.python.org` is in `python.org`). */
export function inDomain(host: string, domain: string): boolean {
  const d = domain.trim().toLowerCase().replace(/^\*\./, "").replace(/\.+$/, "");
  return d !== "" && (host === d || host.endsWith(`.${d}`));
}

/** Google Search grounding links to its pages through this host, and names each page's site in its title. */
const GROUNDING_REDIRECT_HOST = "vertexaisearch.cloud.google.com";

/** The site a result is from: its URL's host, or for a grounding redirect the site its title names. */
export function siteOf(source: { readonly url: string; readonly title?: string }): string | undefined {
  const host = hostOf(source.url);
  if (host !== GROUNDING_REDIRECT_HOST) return host;
  const title = source.title?.trim().toLowerCase();
  return title !== undefined && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(title) ? title : undefined;
}

/**
 * Whether a result passes the query's domain filters; a result whose site is unknown never does
 * when any filter is set.
 */
export function passesDomainFilters(
  source: { readonly url: string; readonly title?: string },
  query: WebSearchQuery,
): boolean {
  const allowed = query.allowedDomains ?? [];
  const blocked = query.blockedDomains ?? [];
  if (allowed.length === 0 && blocked.length === 0) return true;
  const host = siteOf(source);
  if (host === undefined) return false;
  if (allowed.length > 0 && !allowed.some((d) => inDomain(host, d))) return false;
  return !blocked.some((d) => inDomain(host, d));
}
