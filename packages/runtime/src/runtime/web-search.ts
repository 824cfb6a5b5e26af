import {
  createWebSearchTool,
  modelWebSearcher,
  providerRunsWebSearch,
  type RegisteredTool,
  searxngWebSearcher,
} from "@attractor/agent";
import type { Request, StreamEvent, Usage } from "@attractor/llm";
import type { WebSearchSettings } from "../config/settings-schema.js";

/** The session's web_search tool, or why there is none. */
export type WebSearchChoice =
  | { readonly kind: "offered"; readonly tool: RegisteredTool; readonly backend: string }
  | { readonly kind: "off" }
  | { readonly kind: "unavailable"; readonly notice: string };

/**
 * Chooses how web_search searches: a SearXNG instance when settings name one, else the
 * provider's own search in a side request to the session's model (which carries only that
 * search tool), else no tool and a notice saying why and how to get one.
 */
export function chooseWebSearch(options: {
  readonly settings: WebSearchSettings | undefined;
  readonly provider: string;
  readonly client: { stream(request: Request): AsyncIterable<StreamEvent> };
  /** The session's current model. */
  readonly model: () => string;
  /** Counts what a side request used with the session's spending. */
  readonly onUsage?: (usage: Usage, model: string) => void;
}): WebSearchChoice {
  const { settings, provider } = options;
  if (settings?.enabled === false) return { kind: "off" };
  if (settings?.searxngUrl !== undefined)
    return {
      kind: "offered",
      backend: "searxng",
      tool: createWebSearchTool({ search: searxngWebSearcher({ url: settings.searxngUrl }) }),
    };
  if (providerRunsWebSearch(provider))
    return {
      kind: "offered",
      backend: provider,
      tool: createWebSearchTool({
        search: modelWebSearcher(options.client, {
          model: options.model,
          provider,
          ...(options.onUsage !== undefined && { onUsage: options.onUsage }),
        }),
      }),
    };
  return {
    kind: "unavailable",
    notice: `web_search is not offered: the ${provider} provider runs no web search of its own. Set webSearch.searxngUrl in settings to search through a SearXNG instance.`,
  };
}
