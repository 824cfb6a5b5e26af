import type { WebSearchTool } from "@attractor/llm";
import { Type } from "@sinclair/typebox";
import type { RegisteredTool } from "../../types/tool.js";
import { defineBuiltinTool } from "../define-tool.js";
import { ToolError } from "../shared/tool-errors.js";

/** The agent's name for the provider's web search. */
export const WEB_SEARCH_TOOL = "web_search";

/** The provider's own search options (see @attractor/llm's WebSearchTool). */
export type WebSearchToolOptions = Omit<WebSearchTool, "kind">;

const DESCRIPTION =
  "Searches the web and reads the pages found, for facts newer than your training or outside " +
  "the project: documentation, error messages, releases. Cite the pages you used.";

/**
 * The `web_search` tool: the model provider runs it (Anthropic's web search, OpenAI's
 * web_search), so a session offers it as a provider tool where its provider has one and not at
 * all elsewhere. Its executor only answers a model that calls it as a function anyway: with an
 * error saying search is unavailable, never with made-up results.
 */
export function createWebSearchTool(options: WebSearchToolOptions = {}): RegisteredTool {
  const tool = defineBuiltinTool({
    name: WEB_SEARCH_TOOL,
    description: DESCRIPTION,
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
