import { ToolError } from "../shared/tool-errors.js";
import { passesDomainFilters, type WebSearcher, type WebSearchSource } from "./findings.js";

export interface SearxngSearcherOptions {
  /** The instance's base URL, e.g. `http://127.0.0.1:8888` (its JSON format must be enabled). */
  readonly url: string;
  /** Results kept at most (default 10). */
  readonly maxResults?: number;
  /** The whole request (default 15 s). */
  readonly timeoutMs?: number;
  /** The fetch to use (the global one by default). */
  readonly fetch?: typeof fetch;
}

interface SearxngResult {
  readonly url?: unknown;
  readonly title?: unknown;
  readonly content?: unknown;
  readonly publishedDate?: unknown;
}

const str = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;

/**
 * A WebSearcher that asks a SearXNG instance (`/search?format=json`), for providers without a
 * search of their own. Domain filters are applied to the results it returns; an error or a page
 * that is not SearXNG's JSON throws a ToolError naming the instance.
 */
export function searxngWebSearcher(options: SearxngSearcherOptions): WebSearcher {
  const base = options.url.replace(/\/+$/, "");
  const max = options.maxResults ?? 10;
  const doFetch = options.fetch ?? fetch;
  return async (query) => {
    const url = new URL(`${base}/search`);
    url.searchParams.set("q", query.query);
    url.searchParams.set("format", "json");
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000);
    const signal = query.signal === undefined ? timeout : AbortSignal.any([query.signal, timeout]);
    let body: unknown;
    try {
      const response = await doFetch(url, { headers: { accept: "application/json" }, signal });
      if (!response.ok)
        throw new ToolError(
          "search_failed",
          `The search service at ${base} answered HTTP ${response.status}${response.status === 403 ? " (is its JSON format enabled in settings.yml, search.formats?)" : ""}.`,
        );
      body = await response.json();
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(
        "search_failed",
        `The search service at ${base} could not be used: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const raw = (body as { results?: unknown } | null)?.results;
    if (!Array.isArray(raw))
      throw new ToolError(
        "search_failed",
        `The search service at ${base} did not answer with SearXNG's JSON results.`,
      );
    const results: WebSearchSource[] = [];
    const seen = new Set<string>();
    for (const r of raw as SearxngResult[]) {
      const link = str(r.url);
      if (link === undefined || seen.has(link) || !/^https?:\/\//i.test(link)) continue;
      if (!passesDomainFilters({ url: link }, query)) continue;
      seen.add(link);
      const title = str(r.title);
      const snippet = str(r.content);
      const age = str(r.publishedDate);
      results.push({
        url: link,
        ...(title !== undefined && { title }),
        ...(snippet !== undefined && { snippet }),
        ...(age !== undefined && { pageAge: age }),
      });
      if (results.length >= max) break;
    }
    return { backend: "searxng", queries: [query.query], results };
  };
}
