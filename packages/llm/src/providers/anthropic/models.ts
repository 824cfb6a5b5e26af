import { getModelInfo } from "../../catalog/index.js";
import type { ReasoningEffort } from "../../types/index.js";

/** Used as max_tokens when the request gives none and the model is not in the table below. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * Largest output each model family accepts, for models the catalog does not list.
 * Matched by prefix, longest first, so dated ids (claude-sonnet-4-5-20250929) and aliases both hit.
 */
const MAX_OUTPUT_BY_PREFIX: readonly (readonly [string, number])[] = [
  ["claude-fable-5", 128_000],
  ["claude-opus-5", 128_000],
  ["claude-sonnet-5", 128_000],
  ["claude-haiku-5", 128_000],
  ["claude-opus-4-6", 128_000],
  ["claude-opus-4-5", 64_000],
  ["claude-opus-4-1", 32_000],
  ["claude-opus-4", 32_000],
  ["claude-sonnet-4-5", 64_000],
  ["claude-sonnet-4", 64_000],
  ["claude-haiku-4-5", 64_000],
  ["claude-3-7-sonnet", 64_000],
  ["claude-3-5-sonnet", 8192],
  ["claude-3-5-haiku", 8192],
  ["claude-3-opus", 4096],
  ["claude-3-haiku", 4096],
];

/**
 * The model's maximum output tokens: the model catalog's figure when it knows the model, else the
 * family table above, else DEFAULT_MAX_TOKENS.
 */
export function maxOutputTokens(model: string): number {
  const info = getModelInfo(model);
  if (info?.provider === "anthropic" && info.maxOutput !== undefined) return info.maxOutput;
  let best: readonly [string, number] | undefined;
  for (const entry of MAX_OUTPUT_BY_PREFIX) {
    if (model.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1] ?? DEFAULT_MAX_TOKENS;
}

/**
 * Extended-thinking budget per reasoning effort. The API's minimum budget is 1024 tokens, so
 * "minimal" gets exactly that; the others follow the documented ladder.
 */
export const THINKING_BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24_576,
  xhigh: 32_000,
};

/** Smallest budget_tokens the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** `output_config.effort` per reasoning effort, for models that think adaptively. */
export const ADAPTIVE_EFFORTS: Readonly<Record<ReasoningEffort, "low" | "medium" | "high" | "max">> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "max",
};

/** Families that only ever thought adaptively, whatever their version number. */
const ADAPTIVE_FAMILIES = /^claude-(mythos|fable)\b/;

/**
 * Whether the model takes adaptive thinking (`thinking: {type: "adaptive"}` with
 * `output_config.effort`) rather than a token budget. Claude 4.6 introduced it and deprecated
 * budgets; later models reject budgets with a 400. Versions are read from ids such as
 * claude-opus-4-6, claude-sonnet-5 or claude-3-7-sonnet-20250219 (a trailing date is not a
 * version); an id without a version keeps the budget form, which every model before 4.6 needs.
 */
export function thinksAdaptively(model: string): boolean {
  if (ADAPTIVE_FAMILIES.test(model)) return true;
  const numbers = model
    .replace(/-\d{8}$/, "")
    .split(/[-.@]/)
    .filter((t) => /^\d{1,2}$/.test(t))
    .map(Number);
  const [major, minor = 0] = numbers;
  if (major === undefined) return false;
  return major > 4 || (major === 4 && minor >= 6);
}
