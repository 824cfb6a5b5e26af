type Env = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` in every string of a JSON value, as Claude Code does in
 * `.mcp.json`. Variables that are unset (or empty, for the `:-` form) without a default are
 * collected in `missing` and expand to "".
 */
export function expandVariables<T>(value: T, env: Env, missing: Set<string> = new Set()): T {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (_all, name: string, fallback: string | undefined) => {
      const set = env[name];
      if (set !== undefined && (fallback === undefined || set !== "")) return set;
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return "";
    }) as T;
  }
  if (Array.isArray(value)) return value.map((v) => expandVariables(v, env, missing)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandVariables(v, env, missing);
    return out as T;
  }
  return value;
}
