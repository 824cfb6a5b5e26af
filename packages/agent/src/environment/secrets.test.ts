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
