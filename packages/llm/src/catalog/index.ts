import type { Usage } from "../types/index.js";
import data from "./models.json" with { type: "json" };

export type ModelCapability = "tools" | "vision" | "reasoning";

/** What the catalog knows about a model. Advisory: ids it does not know still pass through. */
export interface ModelInfo {
  readonly id: string;
  readonly provider: string;
  readonly displayName: string;
  readonly contextWindow: number;
  readonly maxOutput?: number;
  readonly supportsTools: boolean;
  readonly supportsVision: boolean;
  readonly supportsReasoning: boolean;
  /** US dollars per million tokens. */
  readonly inputCostPerMillion?: number;
  readonly outputCostPerMillion?: number;
  readonly cacheReadCostPerMillion?: number;
  readonly cacheWriteCostPerMillion?: number;
  /** YYYY-MM. */
  readonly knowledgeCutoff?: string;
  /** YYYY-MM-DD. */
  readonly releaseDate?: string;
  readonly aliases: readonly string[];
  /** The model an agent uses for this provider when none is chosen. */
  readonly default?: boolean;
}

/** Every model in the catalog, each provider's newest flagship first. */
const MODELS: readonly ModelInfo[] = data.models;

const BY_NAME = new Map<string, ModelInfo>();
for (const model of MODELS) {
  BY_NAME.set(model.id, model);
  for (const alias of model.aliases) if (!BY_NAME.has(alias)) BY_NAME.set(alias, model);
}

/** The model with this id or alias; undefined when the catalog does not know it. */
export const getModelInfo = (idOrAlias: string): ModelInfo | undefined => BY_NAME.get(idOrAlias);

/** The catalog's models, all or one provider's, each provider's newest flagship first. */
export const listModels = (provider?: string): readonly ModelInfo[] =>
  provider === undefined ? MODELS : MODELS.filter((m) => m.provider === provider);

const HAS: Readonly<Record<ModelCapability, (m: ModelInfo) => boolean>> = {
  tools: (m) => m.supportsTools,
  vision: (m) => m.supportsVision,
  reasoning: (m) => m.supportsReasoning,
};

/** The provider's newest flagship (with the capability, when given); undefined when none. */
export const getLatestModel = (provider: string, capability?: ModelCapability): ModelInfo | undefined =>
  listModels(provider).find((m) => capability === undefined || HAS[capability](m));

/** The model an agent should use for the provider by default; undefined when the catalog has none. */
export const defaultModel = (provider: string): ModelInfo | undefined =>
  listModels(provider).find((m) => m.default === true) ?? getLatestModel(provider);

/**
 * The cost of a usage in US dollars; undefined for an unknown model or one without prices.
 * Input tokens count cached ones too (every adapter reports them so): cache reads are priced at
 * the cache-read rate, cache writes at the cache-write rate, the rest at the input rate (each
 * falling back to the input rate). Output includes reasoning tokens, priced as output.
 */
export function estimateCost(modelId: string, usage: Usage): number | undefined {
  const model = getModelInfo(modelId);
  if (model?.inputCostPerMillion === undefined || model.outputCostPerMillion === undefined) return undefined;
  const input = model.inputCostPerMillion;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const dollars =
    plain * input +
    cacheRead * (model.cacheReadCostPerMillion ?? input) +
    cacheWrite * (model.cacheWriteCostPerMillion ?? input) +
    usage.outputTokens * model.outputCostPerMillion;
  return dollars / 1_000_000;
}
