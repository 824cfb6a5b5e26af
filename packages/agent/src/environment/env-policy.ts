import { isSecretVariable } from "./secrets.js";

/**
 * Which of the host's environment variables a command sees. This is a safety default that keeps
 * API keys out of tool output, not a security boundary.
 */
export type EnvInheritance = "all" | "core" | "none";

export interface EnvPolicy {
  /** "all" (default): everything except secrets; "core": only core variables; "none": nothing inherited. */
  readonly inherit?: EnvInheritance;
  /** Secret-looking names to pass through anyway (exact names, case-insensitive). */
  readonly allowSecrets?: readonly string[];
  /** Extra names kept under "core" (exact names, case-insensitive). */
  readonly include?: readonly string[];
}

/** Variables every command needs to behave like a normal shell, plus language toolchain paths. */
export const CORE_ENV_VARS: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TERM",
  "TMPDIR",
  "TZ",
  "GOPATH",
  "GOROOT",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "NVM_DIR",
  "NODE_PATH",
  "PYENV_ROOT",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "JAVA_HOME",
  "GEM_HOME",
  "GEM_PATH",
  "RBENV_ROOT",
  "DENO_DIR",
  "BUN_INSTALL",
];

/**
 * Settings that make prompting programs fail fast instead of waiting on a terminal that is not
 * there (stdin is closed as well).
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = {
  CI: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  PAGER: "cat",
  MANPAGER: "cat",
  GIT_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  DEBIAN_FRONTEND: "noninteractive",
  NO_COLOR: "1",
  PIP_NO_INPUT: "1",
  npm_config_yes: "true",
  SSH_ASKPASS: "",
  GCM_INTERACTIVE: "never",
};

/** Applies the policy to a source environment and returns the variables a command inherits. */
export function filterEnv(
  source: Readonly<Record<string, string | undefined>>,
  policy: EnvPolicy = {},
): Record<string, string> {
  const inherit = policy.inherit ?? "all";
  const out: Record<string, string> = {};
  if (inherit === "none") return out;
  const allowed = new Set((policy.allowSecrets ?? []).map((n) => n.toUpperCase()));
  const core = new Set([...CORE_ENV_VARS, ...(policy.include ?? [])].map((n) => n.toUpperCase()));
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (inherit === "core" && !core.has(upper) && !allowed.has(upper)) continue;
    if (isSecretVariable(name, value) && !allowed.has(upper)) continue;
    out[name] = value;
  }
  return out;
}

/** The full environment of a command: the filtered host variables, non-interactive settings, then extras. */
export function buildCommandEnv(
  source: Readonly<Record<string, string | undefined>>,
  policy: EnvPolicy | undefined,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const env = { ...filterEnv(source, policy), ...NON_INTERACTIVE_ENV, ...extra };
  // bash without PATH falls back to a minimal one; keep the usual system dirs for "none".
  if (env.PATH === undefined) env.PATH = "/usr/local/bin:/usr/bin:/bin";
  // The host's TERM is kept (the spec lists it among the variables always passed); without one,
  // "dumb" tells programs not to draw for a terminal.
  if (env.TERM === undefined) env.TERM = "dumb";
  return env;
}
