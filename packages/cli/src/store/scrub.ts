const SECRET_NAME = /(_API_KEY|_SECRET|_TOKEN|_PASSWORD|_CREDENTIAL|_CREDENTIALS|_KEY)$/i;
const SECRET_FIELD = /^(api[_-]?key|x-api-key|authorization|access[_-]?token|secret|password)$/i;
/** Shapes of well-known API keys, redacted even when the environment does not hold them. */
const KEY_SHAPES = [
  /\bsk-(?:ant-|proj-|or-)?[A-Za-z0-9_-]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
];
export const REDACTED = "[REDACTED]";

/** Secret values of the environment (`*_API_KEY`, `*_TOKEN`…), longest first, at least 8 characters. */
export function secretValuesFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && SECRET_NAME.test(name)) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Builds a function returning a deep copy of JSON data with secrets replaced by [REDACTED]. */
export function createScrubber(secrets: readonly string[]): (value: unknown) => unknown {
  const scrubString = (text: string): string => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const shape of KEY_SHAPES) out = out.replace(shape, REDACTED);
    return out;
  };
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === "string")
      return key !== undefined && SECRET_FIELD.test(key) && value.length > 0 ? REDACTED : scrubString(value);
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
