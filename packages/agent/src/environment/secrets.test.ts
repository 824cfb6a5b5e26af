import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCommandEnv } from "./env-policy.js";
import { isSecretName, isSecretVariable, REDACTED, redactSecrets, secretValues } from "./secrets.js";

const SECRET_NAMES = [
  "AWS_SECRET_ACCESS_KEY",
  "AWS_ACCESS_KEY_ID",
  "AWS_SESSION_TOKEN",
  "AZURE_CLIENT_SECRET",
  "AZURE_STORAGE_CONNECTION_STRING",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "STRIPE_SECRET_KEY",
  "STRIPE_API_KEY",
  "PAYPAL_CLIENT_SECRET",
  "DATABASE_URL",
  "REDIS_URL",
  "MONGODB_URI",
  "PGPASSWORD",
  "MYSQL_PWD",
  "DB_PASSWORD",
  "API_KEY",
  "APIKEY",
  "SECRET",
  "TOKEN",
  "PASSWORD",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "SENTRY_DSN",
  "SLACK_WEBHOOK_URL",
  "SECRET_KEY_BASE",
  "github_token",
];
const ORDINARY_NAMES = [
  "PATH",
  "HOME",
  "PWD",
  "OLDPWD",
  "SSH_AUTH_SOCK",
  "TOKENIZERS_PARALLELISM",
  "DBUS_SESSION_BUS_ADDRESS",
  "PGHOST",
  "DATABASE_NAME",
  "LANG",
  "TERM",
  "GIT_AUTHOR_NAME",
  "NODE_ENV",
];

describe("the one secret list", () => {
  it("flags common cloud, database, payment and bare secret names", () => {
    expect(SECRET_NAMES.filter((n) => !isSecretName(n))).toEqual([]);
  });

  it("leaves ordinary variables alone", () => {
    expect(ORDINARY_NAMES.filter((n) => isSecretName(n))).toEqual([]);
  });

  it("flags any variable whose value is a URL with a password", () => {
    expect(isSecretVariable("UPSTREAM", "https://deploy:hunter2hunter2@git.example/repo.git")).toBe(true);
    expect(isSecretVariable("UPSTREAM", "https://git.example/repo.git")).toBe(false);
  });

  it("commands inherit none of them, unless allowed by name", () => {
    const source: Record<string, string> = { PATH: "/bin", UPSTREAM: "amqp://u:pw12345678@mq/" };
    for (const name of [...SECRET_NAMES, ...ORDINARY_NAMES]) source[name] ??= `value-of-${name}`;
    const env = buildCommandEnv(source, { allowSecrets: ["GH_TOKEN"] }, undefined);
    expect(SECRET_NAMES.filter((n) => n !== "GH_TOKEN" && n in env)).toEqual([]);
    expect(env.GH_TOKEN).toBe("value-of-GH_TOKEN");
    expect(env.UPSTREAM).toBeUndefined();
    expect(ORDINARY_NAMES.filter((n) => !(n in env))).toEqual([]);
  });

  it("the redactor removes the same variables' values, key shapes and URL passwords", () => {
    const env = {
      STRIPE_SECRET_KEY: "stripe-value-123456",
      PGPASSWORD: "pg-password-987",
      HOME: "/home/someone",
    };
    const values = secretValues(env);
    expect(values).toEqual(["stripe-value-123456", "pg-password-987"]);
    const text = [
      "stripe-value-123456 and pg-password-987 in /home/someone",
      "postgres://app:s3cr3t-pass@db.internal:5432/app",
      "AKIAABCDEFGHIJKLMNOP sk_live_abcdefghijklmnop1234 ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----",
    ].join("\n");
    const out = redactSecrets(text, values);
    for (const leaked of ["stripe-value", "pg-password", "s3cr3t-pass", "AKIA", "sk_live", "ghp_", "abc\n"])
      expect(out).not.toContain(leaked);
    expect(out).toContain("/home/someone");
    expect(out).toContain(`postgres://app:${REDACTED}@db.internal:5432/app`);
  });
});

// The name rules as regular expressions, as they were first written: the reference the word-based
// isSecretName must agree with on any name made of their words, other words and delimiters.
const REFERENCE = {
  word: /(?:^|_)(?:API_?KEY|SECRET|SECRETS|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDENTIALS|PRIVATE_KEY|ACCESS_KEY|ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_KEY|SIGNING_KEY|ENCRYPTION_KEY|MASTER_KEY|CLIENT_SECRET|DSN|CONNECTION_STRING|CONN_STR|WEBHOOK|WEBHOOK_URL|COOKIE|SESSION_SECRET)(?:_|$)/i,
  suffix: /(?:_KEY|_PWD|PASSWORD|PASSWD)$/i,
  url: /(?:^|_)(?:DATABASE|DB|REDIS|MONGO|MONGODB|POSTGRES|POSTGRESQL|PG|MYSQL|MARIADB|AMQP|RABBITMQ|BROKER|KAFKA|ELASTICSEARCH|CLICKHOUSE|SUPABASE|NEON)_(?:URL|URI)$/i,
  auth: /(?:^|_)(?:AUTH|AUTHTOKEN|AUTHKEY|AUTHORIZATION|OAUTH|OAUTH2|BEARER)(?:$|_(?!(?:SOCK|SOCKET|DIR|FILE|PATH|URL|TYPE|METHOD|MODE)(?:_|$)))/i,
  jwt: /JWT/i,
  npm: /^NPM_CONFIG_.*AUTH/i,
};
const referenceIsSecret = (name: string) =>
  name.toUpperCase() === "REDISCLI_AUTH" ||
  REFERENCE.word.test(name) ||
  REFERENCE.suffix.test(name) ||
  REFERENCE.url.test(name) ||
  REFERENCE.auth.test(name) ||
  REFERENCE.jwt.test(name) ||
  REFERENCE.npm.test(name);

describe("isSecretName against the regular-expression reference", () => {
  const WORDS = [
    ...["API", "KEY", "APIKEY", "SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD", "PASSWD", "PASSPHRASE"],
    ...["CREDENTIAL", "CREDENTIALS", "PRIVATE", "ACCESS", "ID", "SESSION", "SIGNING", "ENCRYPTION", "MASTER"],
    ...["CLIENT", "DSN", "CONNECTION", "STRING", "CONN", "STR", "WEBHOOK", "URL", "URI", "COOKIE", "PWD"],
    ...[
      "DATABASE",
      "DB",
      "REDIS",
      "MONGO",
      "PG",
      "KAFKA",
      "NEON",
      "REDISCLI",
      "AUTH",
      "AWS",
      "GITHUB",
      "HOME",
    ],
    ...["PATH", "TOKENIZERS", "PARALLELISM", "SSH", "SOCK", "KEYS", "MY", "PGPASSWORD", "", "x"],
    ...["OAUTH", "AUTHOR", "AUTHTOKEN", "BEARER", "JWT", "NPM", "CONFIG", "DOCKER", "SOCKET", "TYPE"],
  ];
  it("agrees on any name made of these words, in any case, joined by underscores", () => {
    const name = fc
      .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom("upper", "lower", "mixed")), {
        minLength: 1,
        maxLength: 5,
      })
      .map((parts) =>
        parts
          .map(([w, c]) =>
            c === "upper" ? w : c === "lower" ? w.toLowerCase() : w.charAt(0) + w.slice(1).toLowerCase(),
          )
          .join("_"),
      );
    fc.assert(
      fc.property(name, (n) => isSecretName(n) === referenceIsSecret(n)),
      { numRuns: 20_000 },
    );
  });
});
