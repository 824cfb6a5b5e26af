import { getModelInfo } from "@attractor/llm";
import type { Settings } from "./settings-schema.js";

/** A project's settings cut in two: what applies without trust, and the names of what was withheld. */
export interface SplitSettings {
  readonly harmless: Settings;
  /** Setting paths withheld until the project is trusted, e.g. `baseUrl`, `permissions.allow`. */
  readonly withheld: readonly string[];
}

// Settings that can only make a run stricter or choose among known models. Everything else —
// provider, base URL, mode, env passing, allow rules and any setting added later (hooks, servers)
// — waits for trust: a new key is security-sensitive until someone decides otherwise.
const HARMLESS_KEYS = new Set(["$schema", "reasoningEffort", "maxTurns", "toolMode"]);
const HARMLESS_MODES = new Set(["normal", "plan"]);

/**
 * Splits an untrusted project's settings: deny and ask rules, a model from the catalog, a
 * stricter mode and tuning knobs apply; the rest is withheld.
 */
export function splitUntrustedSettings(settings: Settings): SplitSettings {
  const harmless: Record<string, unknown> = {};
  const withheld: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    if (HARMLESS_KEYS.has(key)) harmless[key] = value;
    else if (key === "model") {
      if (typeof value === "string" && getModelInfo(value) !== undefined) harmless[key] = value;
      else withheld.push("model");
    } else if (key === "mode") {
      if (HARMLESS_MODES.has(value as string)) harmless[key] = value;
      else withheld.push("mode");
    } else if (key === "permissions") {
      const rules = value as NonNullable<Settings["permissions"]>;
      const kept: Record<string, readonly string[]> = {};
      if (rules.deny) kept.deny = rules.deny;
      if (rules.ask) kept.ask = rules.ask;
      if (Object.keys(kept).length > 0) harmless.permissions = kept;
      for (const [list, entries] of Object.entries(rules))
        if (list !== "deny" && list !== "ask" && Array.isArray(entries) && entries.length > 0)
          withheld.push(`permissions.${list}`);
    } else withheld.push(key);
  }
  return { harmless: harmless as Settings, withheld };
}
