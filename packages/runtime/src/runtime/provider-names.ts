/** The providers the CLI can talk to (kept free of imports: argument parsing reads it at start-up). */
export const PROVIDERS = ["anthropic", "openai", "gemini", "openai-compatible"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** True when `name` is a provider the CLI knows. */
export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}
