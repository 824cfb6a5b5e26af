/**
 * The one list of what counts as a secret: which environment variables commands do not inherit,
 * and what transcripts and machine-readable output redact. Keep both uses on these definitions.
 */

// Names are judged word by word (words split on `_`, any case), not by regular expressions: a
// process judges its whole environment at start-up, and compiling case-insensitive alternations
// costs more than all the comparisons.
// A word or a pair of words of the name: `GITHUB_TOKEN`, `SECRET_KEY_BASE`, bare `API_KEY`/`SECRET`
// (AWS_SECRET_ACCESS_KEY and CLIENT_SECRET hold SECRET already); `TOKENIZERS_PARALLELISM` and
// `SSH_AUTH_SOCK` are not matched.
const SECRET_WORDS: ReadonlySet<string> = new Set([
  "APIKEY",
  "API_KEY",
  "SECRET",
  "SECRETS",
  "TOKEN",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS",
  "PRIVATE_KEY",
  "ACCESS_KEY",
  "SESSION_KEY",
  "SIGNING_KEY",
  "ENCRYPTION_KEY",
  "MASTER_KEY",
  "DSN",
  "CONNECTION_STRING",
  "CONN_STR",
  "WEBHOOK",
  "COOKIE",
]);
/** The most words one of SECRET_WORDS spans. */
const LONGEST_SECRET_WORD = 2;
// Any `…_KEY` (STRIPE_SECRET_KEY, AZURE_STORAGE_KEY), `…_PWD` (not PWD itself) and glued-on
// password names (PGPASSWORD).
const SECRET_SUFFIXES = ["_KEY", "_PWD", "PASSWORD", "PASSWD"] as const;
// Connection URLs of databases and brokers carry their password inside: `<SERVICE>_URL` or `_URI`.
const CONNECTION_SERVICES: ReadonlySet<string> = new Set([
  "DATABASE",
  "DB",
  "REDIS",
  "MONGO",
  "MONGODB",
  "POSTGRES",
  "POSTGRESQL",
  "PG",
  "MYSQL",
  "MARIADB",
  "AMQP",
  "RABBITMQ",
  "BROKER",
  "KAFKA",
  "ELASTICSEARCH",
  "CLICKHOUSE",
  "SUPABASE",
  "NEON",
]);
const EXACT = new Set(["REDISCLI_AUTH"]);
// Words naming an authentication value (`NPM_CONFIG__AUTH`, `DOCKER_AUTH_CONFIG`, `BASIC_AUTH`,
// `GH_OAUTH`, `AUTHTOKEN`), unless the next word says it is a path to one (`SSH_AUTH_SOCK`).
const AUTH_WORDS: ReadonlySet<string> = new Set([
  "AUTH",
  "AUTHTOKEN",
  "AUTHKEY",
  "AUTHORIZATION",
  "OAUTH",
  "OAUTH2",
  "BEARER",
]);
const NOT_A_CREDENTIAL_AFTER_AUTH: ReadonlySet<string> = new Set([
  "SOCK",
  "SOCKET",
  "DIR",
  "FILE",
  "PATH",
  "URL",
  "TYPE",
  "METHOD",
  "MODE",
]);

/** Whether one of the name's words, or two in a row, is a secret word. */
function hasSecretWord(words: readonly string[]): boolean {
  for (let start = 0; start < words.length; start++) {
    let phrase = "";
    for (let n = 0; n < LONGEST_SECRET_WORD && start + n < words.length; n++) {
      phrase = n === 0 ? (words[start] as string) : `${phrase}_${words[start + n]}`;
      if (SECRET_WORDS.has(phrase)) return true;
    }
  }
  return false;
}

/** `scheme://user:password@host`: a credential in any URL. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/:@"'<>]*):([^\s/@"'<>]+)@/gi;

/**
 * True when an environment variable's name marks it as a secret: API keys, tokens, passwords,
 * credentials, private and access keys, cloud, payment and database names (AWS_SECRET_ACCESS_KEY,
 * STRIPE_SECRET_KEY, DATABASE_URL, PGPASSWORD, bare API_KEY and SECRET, GITHUB_TOKEN…).
 */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (EXACT.has(upper)) return true;
  for (const suffix of SECRET_SUFFIXES) if (upper.endsWith(suffix)) return true;
  // npm passes every `npm_config_*` setting on: `_auth`, `_authToken` and `//host/:_authToken`.
  if (upper.startsWith("NPM_CONFIG_") && upper.includes("AUTH")) return true;
  // JSON web tokens: CI_JOB_JWT, CI_JOB_JWT_V2, JWT_SIGNING.
  if (upper.includes("JWT")) return true;
  const words = upper.split("_");
  if (hasSecretWord(words)) return true;
  for (let i = 0; i < words.length; i++)
    if (AUTH_WORDS.has(words[i] as string) && !NOT_A_CREDENTIAL_AFTER_AUTH.has(words[i + 1] ?? ""))
      return true;
  const last = words[words.length - 1];
  return (
    words.length >= 2 &&
    (last === "URL" || last === "URI") &&
    CONNECTION_SERVICES.has(words[words.length - 2] as string)
  );
}

/**
 * True when a variable is a secret by its name, or by its value: a URL with a password, or a
 * credential of a known shape (provider keys, GitHub, Slack and AWS tokens, JSON web tokens,
 * private keys) whatever the variable is called.
 */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  if (isSecretName(name)) return true;
  if (value === undefined || value.length < 16) return false;
  URL_CREDENTIALS.lastIndex = 0;
  return URL_CREDENTIALS.test(value) || ANY_SHAPE.test(value) || PRIVATE_KEY_START.test(value);
}

/** The first line of a PEM private key: a value holding one is a key even when cut short. */
const PRIVATE_KEY_START = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * Shapes of well-known credentials, found in any text whether or not this process holds them:
 * provider API keys, GitHub, GitLab, Slack, npm and Stripe tokens, AWS access key ids, PEM
 * private keys.
 */
export const SECRET_SHAPES: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-|or-|svcacct-)?[A-Za-z0-9_-]{20,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g,
];

/** The text for a removed secret. */
export const REDACTED = "[REDACTED]";

/**
 * Replaces the given secret values, known credential shapes and the passwords of URLs
 * (`postgres://app:[REDACTED]@db`) in a text.
 */
export function redactSecrets(text: string, values: readonly string[] = []): string {
  let out = text;
  for (const value of values) if (value !== "" && out.includes(value)) out = out.split(value).join(REDACTED);
  // Most texts hold no credential: one pass of the joined shapes finds that out, and only a text
  // with a match pays for the shapes one by one (which redact overlapping matches whole).
  if (ANY_SHAPE.test(out)) for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  if (!out.includes("@")) return out;
  return out.replace(
    URL_CREDENTIALS,
    (_match, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`,
  );
}

/** Any of SECRET_SHAPES, to tell in one pass whether a text holds one. */
const ANY_SHAPE = new RegExp(SECRET_SHAPES.map((shape) => shape.source).join("|"));

/**
 * The secret values of an environment (variables isSecretVariable flags, at least 8 characters),
 * longest first so a value containing another is replaced whole.
 */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && value.length >= 8 && isSecretVariable(name, value)) values.add(value);
  return [...values].sort((a, b) => b.length - a.length);
}
