import { getModelInfo } from "@attractor/llm";
import { toPermissionMode } from "../permissions/modes.js";
import type { Settings } from "./settings-schema.js";

/** A project's settings cut in two: what applies without trust, and the names of what was withheld. */
export interface SplitSettings {
  readonly harmless: Settings;
  /** Setting paths withheld until the project is trusted, e.g. `baseUrl`, `permissions.allow`. */
  readonly withheld: readonly string[];
}

// Settings that can only make a run stricter or choose among known models. Everything else —
// provider, base URL, mode, env passing, allow rules, extra directories, a remote host and any
// setting added later (hooks, servers) — waits for trust: a new key is security-sensitive until
// someone decides otherwise.
// `sandbox`: a project's may only tighten the user's (see tightenSandbox).
const HARMLESS_KEYS = new Set(["$schema", "reasoningEffort", "maxTurns", "toolMode", "sandbox"]);
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
      if (HARMLESS_MODES.has(toPermissionMode(value as string) ?? "")) harmless[key] = value;
      else withheld.push("mode");
    } else if (key === "permissions") {
      const rules = value as NonNullable<Settings["permissions"]>;
      const kept: Record<string, unknown> = {};
      // Deny and ask rules only narrow; a default mode no looser than normal neither widens.
      if (rules.deny) kept.deny = rules.deny;
      if (rules.ask) kept.ask = rules.ask;
      if (HARMLESS_MODES.has(toPermissionMode(rules.defaultMode) ?? "")) kept.defaultMode = rules.defaultMode;
      if (Object.keys(kept).length > 0) harmless.permissions = kept;
      for (const [name, entry] of Object.entries(rules))
        if (!(name in kept) && entry !== undefined && !(Array.isArray(entry) && entry.length === 0))
          withheld.push(`permissions.${name}`);
    } else if (key === "lsp") {
      // Turning language servers off or tuning the wait is harmless; naming servers runs programs.
      const { servers, ...rest } = value as NonNullable<Settings["lsp"]>;
      if (Object.keys(rest).length > 0) harmless.lsp = rest;
      if (servers !== undefined && Object.keys(servers).length > 0) withheld.push("lsp.servers");
    } else withheld.push(key);
  }
  return { harmless: harmless as Settings, withheld };
}
