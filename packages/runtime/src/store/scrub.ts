import { REDACTED, redactSecrets, secretValues } from "@attractor/agent";

export { REDACTED };

// JSON fields whose whole value is a credential, whatever it looks like.
const SECRET_FIELD = /^(api[_-]?key|x-api-key|authorization|access[_-]?token|secret|password)$/i;

/**
 * Secret values of the environment, longest first: the variables the shell does not inherit
 * either (one list, see isSecretVariable), at least 8 characters long.
 */
export function secretValuesFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  return secretValues(env);
}

/**
 * Builds a function returning a deep copy of JSON data with secrets replaced by [REDACTED]: the
 * given values, well-known credential shapes, URL passwords and credential-named fields.
 */
export function createScrubber(secrets: readonly string[]): (value: unknown) => unknown {
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === "string")
      return key !== undefined && SECRET_FIELD.test(key) && value.length > 0
        ? REDACTED
        : redactSecrets(value, secrets);
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, k);
      return out;
    }
    return value;
  };
  return (value) => walk(value);
}
