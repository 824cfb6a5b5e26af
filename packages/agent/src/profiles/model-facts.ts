import { getModelInfo } from "@attractor/llm";

/** What a profile takes from the model catalog. */
export interface ModelFacts {
  readonly contextWindowSize: number;
  readonly supportsReasoning: boolean;
  readonly displayName?: string;
  readonly knowledgeCutoff?: string;
}

/**
 * Context window, reasoning support, display name and knowledge cutoff of a model from the llm
 * catalog; the provider's fallbacks for a model the catalog does not know. An explicit context
 * window (a host that knows better) wins over both.
 */
export function modelFacts(
  model: string,
  fallback: { readonly contextWindowSize: number; readonly supportsReasoning: boolean },
  contextWindowOverride?: number,
): ModelFacts {
  const info = getModelInfo(model);
  return {
    contextWindowSize: contextWindowOverride ?? info?.contextWindow ?? fallback.contextWindowSize,
    supportsReasoning: info?.supportsReasoning ?? fallback.supportsReasoning,
    ...(info?.displayName !== undefined && { displayName: info.displayName }),
    ...(info?.knowledgeCutoff !== undefined && { knowledgeCutoff: info.knowledgeCutoff }),
  };
}
