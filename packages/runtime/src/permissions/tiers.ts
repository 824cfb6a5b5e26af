/** How much harm a command can do: critical always asks, even in yolo mode. */
export type SafetyTier = "none" | "medium" | "high" | "critical";

export const TIER_ORDER: readonly SafetyTier[] = ["none", "medium", "high", "critical"];

/** The stricter of two tiers. */
export function maxTier(a: SafetyTier, b: SafetyTier): SafetyTier {
  return TIER_ORDER.indexOf(a) >= TIER_ORDER.indexOf(b) ? a : b;
}
