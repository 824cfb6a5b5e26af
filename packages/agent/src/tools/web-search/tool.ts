import type { WebSearchTool } from "@attractor/llm";
import { type Static, Type } from "@sinclair/typebox";
import type { RegisteredTool } from "../../types/tool.js";
import { defineBuiltinTool } from "../define-tool.js";
import { ArgumentError, ToolError } from "../shared/tool-errors.js";
import type { WebSearcher } from "./findings.js";
import { webSearchReport, webSearchReportText } from "./report.js";

/** The agent's name for web search. */
export const WEB_SEARCH_TOOL = "web_search";

export interface WebSearchToolOptions {
  /** Runs the search: modelWebSearcher (the provider's own search), searxngWebSearcher, or yours. */
  readonly search: WebSearcher;
}

/** The provider's own search options, for createProviderWebSearchTool (see @attractor/llm's WebSearchTool). */
export type ProviderWebSearchToolOptions = Omit<WebSearchTool, "kind">;

const DESCRIPTION =
  "Search the web, for facts newer than your training or outside the project: documentation, error messages, releases. " +
  "Returns an answer drawn from the results (when the search gives one) and the numbered sources with their URLs. " +
  "Use allowed_domains or blocked_domains to restrict where results come from. Cite the sources you use by URL; " +
  "fetch a page with web_fetch to read it whole.";

const domains = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description }));

const parameters = Type.Object(
  {
    query: Type.String({ minLength: 2, description: "What to search for." }),
    allowed_domains: domains("Only include results from these domains (and their subdomains)."),
    blocked_domains: domains("Never include results from these domains (and their subdomains)."),
  },
  { additionalProperties: false },
);
type WebSearchArgs = Static<typeof parameters>;

const DOMAIN = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/i;

function checkDomains(list: readonly string[] | undefined, argument: string): readonly string[] | undefined {
  if (list === undefined || list.length === 0) return undefined;
  for (const d of list)
    if (!DOMAIN.test(d.trim()))
      throw new ArgumentError(`${argument}: "${d}" is not a domain name (e.g. docs.python.org)`, argument);
  return list.map((d) => d.trim());
}

/**
 * The `web_search` tool: an ordinary function tool (query, optional allowed_domains and
 * blocked_domains), so a host's permission checks see and judge every search like any call. Each
 * call runs `search` and returns its answer with numbered sources (title and URL); the report is in
 * the result's `details.webSearch` (WebSearchReport) for hosts to render.
 */
export function createWebSearchTool(options: WebSearchToolOptions): RegisteredTool {
  return defineBuiltinTool({
    name: WEB_SEARCH_TOOL,
    description: DESCRIPTION,
    parameters,
    readOnly: true,
    execute: async (args: WebSearchArgs, ctx) => {
      const allowedDomains = checkDomains(args.allowed_domains, "allowed_domains");
      const blockedDomains = checkDomains(args.blocked_domains, "blocked_domains");
      const findings = await options.search({
        query: args.query,
        ...(allowedDomains !== undefined && { allowedDomains }),
        ...(blockedDomains !== undefined && { blockedDomains }),
        ...(ctx.signal !== undefined && { signal: ctx.signal }),
      });
      const report = webSearchReport(args.query, findings);
      return {
        output: webSearchReportText(report),
        details: { webSearch: report, resultCount: report.sources.length },
      };
    },
  });
}

/**
 * `web_search` run inside the model's own response: the session sends it as the provider tool
 * (Request.providerTools) where its profile's provider runs one (ProviderProfile.serverTools), and
 * nowhere else. No tool call reaches the host, so beforeToolCall hooks and permission checks never
 * see these searches: use createWebSearchTool where searches must be judged. A model that calls it
 * as a function anyway gets an error, never made-up results.
 */
export function createProviderWebSearchTool(options: ProviderWebSearchToolOptions = {}): RegisteredTool {
  const tool = defineBuiltinTool({
    name: WEB_SEARCH_TOOL,
    description:
      "Searches the web and reads the pages found, for facts newer than your training or outside " +
      "the project: documentation, error messages, releases. Cite the pages you used.",
    parameters: Type.Object(
      { query: Type.String({ description: "What to search for." }) },
      { additionalProperties: false },
    ),
    readOnly: true,
    execute: () => {
      throw new ToolError(
        "unavailable",
        "web_search is not available with this model provider: it runs no search of its own. " +
          "Use web_fetch on a URL you know, or answer from what you can read.",
      );
    },
  });
  return { ...tool, providerTool: { kind: "web_search", ...options } };
}
