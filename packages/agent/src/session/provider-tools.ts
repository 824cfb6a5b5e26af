import type { Citation, ContentPart, ProviderTool, ToolDefinition, WebSearchData } from "@attractor/llm";
import type { ProviderProfile } from "../types/profile.js";

/** The offered tools sorted into what the request carries. */
export interface ProviderToolSplit {
  /** What the model is told about: function tools and the provider tools it gets. */
  readonly offered: readonly ToolDefinition[];
  /** Tools sent as functions. */
  readonly functions: readonly ToolDefinition[];
  /** Tools the provider runs itself (Request.providerTools). */
  readonly providerTools: readonly ProviderTool[];
  /** Provider tools left out because this profile's provider does not run them. */
  readonly unavailable: readonly string[];
}

/**
 * Splits the offered tools: a tool the provider runs (RegisteredTool.providerTool) goes as that
 * provider tool where the profile's provider runs it with native tool calling, and nowhere
 * otherwise; every other tool goes as a function.
 */
export function splitProviderTools(
  profile: ProviderProfile,
  tools: readonly ToolDefinition[],
): ProviderToolSplit {
  const offered: ToolDefinition[] = [];
  const functions: ToolDefinition[] = [];
  const providerTools: ProviderTool[] = [];
  const unavailable: string[] = [];
  const native = (profile.toolCallMode ?? "native") === "native";
  for (const tool of tools) {
    const providerTool = profile.toolRegistry.get(tool.name)?.providerTool;
    if (providerTool === undefined) {
      offered.push(tool);
      functions.push(tool);
    } else if (native && (profile.serverTools ?? []).includes(providerTool.kind)) {
      offered.push(tool);
      providerTools.push(providerTool);
    } else {
      unavailable.push(tool.name);
    }
  }
  return { offered, functions, providerTools, unavailable };
}

/** A response's web searches and citations for its event, without the providers' raw objects. */
export function searchesAndCitations(parts: readonly ContentPart[]): {
  webSearches?: Omit<WebSearchData, "raw">[];
  citations?: Omit<Citation, "raw">[];
} {
  const webSearches: Omit<WebSearchData, "raw">[] = [];
  const citations: Omit<Citation, "raw">[] = [];
  for (const part of parts) {
    if (part.kind === "web_search") {
      const { raw: _raw, ...search } = part.webSearch;
      webSearches.push(search);
    } else if (part.kind === "text") {
      for (const { raw: _raw, ...citation } of part.citations ?? []) citations.push(citation);
    }
  }
  return {
    ...(webSearches.length > 0 && { webSearches }),
    ...(citations.length > 0 && { citations }),
  };
}
