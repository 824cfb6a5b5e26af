import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filterEnv } from "../src/environment/env-policy.js";
import {
  isSecretVariable,
  probeBubblewrap,
  redactSecrets,
  SandboxedExecutionEnvironment,
} from "../src/index.js";

// Commands do not inherit credentials, judged by name beyond suffixes (AUTH, JWT, npm's auth
// settings) and by value (well-known token shapes, JSON web tokens, private keys), while the
// variables of everyday work pass untouched.

const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const PEM =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----";

/** Names that hold credentials, whatever their value. */
const SECRET_NAMES: readonly string[] = [
  "NPM_CONFIG__AUTH",
  "npm_config__auth",
  "npm_config__authToken",
  "npm_config_//registry.npmjs.org/:_authToken",
  "NPM_CONFIG_//npm.example.com/:_auth",
  "CI_JOB_JWT",
  "CI_JOB_JWT_V2",
  "JWT_SIGNING",
  "DOCKER_AUTH_CONFIG",
  "BASIC_AUTH",
  "PROXY_AUTH",
  "HTTP_AUTHORIZATION",
  "GH_OAUTH",
  "NGROK_AUTHTOKEN",
  "TAILSCALE_AUTHKEY",
  "BEARER",
  "Registry_Auth",
];

/** Values that are credentials, under names that say nothing. */
const SECRET_VALUES: readonly [string, string][] = [
  ["MY_VALUE", `ghp_${"a1B2c3D4e5".repeat(4)}`],
  ["SOMETHING", `github_pat_${"11ABCDEFG0".repeat(5)}`],
  ["PROVIDER", `sk-${"q".repeat(40)}`],
  ["ANT", `sk-ant-api03-${"Zx9".repeat(20)}`],
  ["SLACK_HOOKLESS", "xoxb-1234567890-0987654321-abcdefghijABCDEFGHIJ"],
  ["SLACK_USER", "xoxp-1234567890-0987654321-abcdefghijABCDEFGHIJ"],
  ["AWS_ID", "AKIAIOSFODNN7EXAMPLE"],
  ["SESSION", JWT],
  ["DEPLOY", PEM],
  ["DEPLOY_CUT", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA"],
  ["DB", "postgres://app:hunter2hunter2@db.internal:5432/app"],
  ["GITLAB", `glpat-${"x".repeat(20)}`],
];

/** Everyday variables: never stripped. */
const EVERYDAY: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin:/home/u/.local/bin",
  HOME: "/home/u",
  TERM: "xterm-256color",
  LANG: "en_US.UTF-8",
  LC_ALL: "C.UTF-8",
  NODE_ENV: "development",
  USER: "u",
  SHELL: "/bin/bash",
  EDITOR: "vim",
  SSH_AUTH_SOCK: "/run/user/1000/ssh-agent.sock",
  GIT_AUTHOR_NAME: "Ada Lovelace",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  AUTHOR: "ada",
  NPM_CONFIG_REGISTRY: "https://registry.npmjs.org/",
  npm_config_cache: "/home/u/.npm",
  TOKENIZERS_PARALLELISM: "false",
  JAVA_HOME: "/usr/lib/jvm/java-21",
  PYTHONPATH: "/work/src",
  GOPATH: "/home/u/go",
  KUBECONFIG_CONTEXT: "dev",
  COLORTERM: "truecolor",
  LS_COLORS: "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35",
  DISPLAY: ":0",
  XDG_SESSION_TYPE: "wayland",
  HOSTNAME: "desk",
  TZ: "Europe/Paris",
  MANPATH: "/usr/share/man",
  CI: "true",
  GITHUB_SHA: "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
  GITHUB_REF: "refs/heads/main",
  HTTP_PROXY: "http://proxy.internal:3128",
  SKETCH_DIR: "/home/u/sk-projects/sketches-and-more",
};

describe("environment filtering", () => {
  it.each(SECRET_NAMES)("%s is a secret by its name", (name) => {
    expect(isSecretVariable(name, "value-that-says-nothing")).toBe(true);
    expect(filterEnv({ [name]: "value-that-says-nothing" })).toEqual({});
  });

  it.each(SECRET_VALUES)("%s is a secret by its value", (name, value) => {
    expect(isSecretVariable(name, value)).toBe(true);
    expect(filterEnv({ [name]: value })).toEqual({});
  });

  it("keeps every everyday variable", () => {
    expect(filterEnv(EVERYDAY)).toEqual(EVERYDAY);
  });

  it("a JSON web token is redacted from transcripts too", () => {
    expect(redactSecrets(`token: ${JWT} end`)).toBe("token: [REDACTED] end");
  });

  it("an explicit allow still passes a named one through", () => {
    expect(filterEnv({ CI_JOB_JWT: "x" }, { allowSecrets: ["ci_job_jwt"] })).toEqual({ CI_JOB_JWT: "x" });
  });
});

const status = await probeBubblewrap();
describe.skipIf(!status.available)("credentials do not reach a sandboxed command", () => {
  let dir: string;
  let env: SandboxedExecutionEnvironment;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "env-filter-"));
    env = new SandboxedExecutionEnvironment({
      workingDirectory: dir,
      baseEnv: {
        ...EVERYDAY,
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        NPM_CONFIG__AUTH: "canary-npm-auth-1",
        CI_JOB_JWT: "canary-ci-jwt-2",
        DOCKER_AUTH_CONFIG: '{"auths":{"x":{"auth":"canary-docker-3"}}}',
        INNOCENT_NAME: `ghp_${"c4n4ry".repeat(6)}`,
      },
      sandbox: { home: join(dir, "home") },
    });
  });
  afterAll(async () => {
    await env.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("env shows none of them, and the everyday ones are there", async () => {
    const result = await env.execCommand("env", { timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(result.output).not.toMatch(/canary|c4n4ry/);
    expect(result.output).toContain("NODE_ENV=development");
    expect(result.output).toContain("LANG=en_US.UTF-8");
    expect(result.output).toContain("GIT_AUTHOR_NAME=Ada Lovelace");
  });
});
