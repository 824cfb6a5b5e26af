import { codeRunningFile } from "@attractor/agent";
import picomatch from "picomatch";

/** A sensitive-file pattern: the last pattern matching a path decides whether it is sensitive. */
export interface SensitivePattern {
  readonly pattern: string;
  readonly sensitive: boolean;
}

/** Files whose edits ask first: secrets, keys, credentials, VCS internals, attractor's own settings. */
export const DEFAULT_SENSITIVE_PATTERNS: readonly SensitivePattern[] = [
  { pattern: "**/.env", sensitive: true },
  { pattern: "**/.env.*", sensitive: true },
  { pattern: "**/.env.example", sensitive: false },
  { pattern: "**/.env.sample", sensitive: false },
  { pattern: "**/.env.template", sensitive: false },
  { pattern: "**/*.pem", sensitive: true },
  { pattern: "**/*.key", sensitive: true },
  { pattern: "**/*.p12", sensitive: true },
  { pattern: "**/*.pfx", sensitive: true },
  { pattern: "**/*.keystore", sensitive: true },
  { pattern: "**/id_rsa*", sensitive: true },
  { pattern: "**/id_ecdsa*", sensitive: true },
  { pattern: "**/id_ed25519*", sensitive: true },
  { pattern: "**/.ssh/**", sensitive: true },
  { pattern: "**/.aws/**", sensitive: true },
  { pattern: "**/.gnupg/**", sensitive: true },
  { pattern: "**/.kube/config", sensitive: true },
  { pattern: "**/.docker/config.json", sensitive: true },
  { pattern: "**/*credentials*", sensitive: true },
  { pattern: "**/*secret*", sensitive: true },
  { pattern: "**/.npmrc", sensitive: true },
  { pattern: "**/.pypirc", sensitive: true },
  { pattern: "**/.netrc", sensitive: true },
  { pattern: "**/.git-credentials", sensitive: true },
  { pattern: "**/.git/**", sensitive: true },
  { pattern: "**/.attractor/settings.json", sensitive: true },
];

/** Builds a sensitivity test from patterns (last match wins); paths are posix, relative or absolute. */
export function createSensitiveFileMatcher(
  patterns: readonly SensitivePattern[] = DEFAULT_SENSITIVE_PATTERNS,
): (path: string) => boolean {
  // Compiled on the first test, not when the policy is made: a run may never edit a file, and
  // compiling the patterns costs start-up time before the first model request.
  let compiled: { readonly test: (path: string) => boolean; readonly sensitive: boolean }[] | undefined;
  return (path) => {
    compiled ??= patterns.map((p) => ({
      test: picomatch(p.pattern, { dot: true, nocase: true }),
      sensitive: p.sensitive,
    }));
    let sensitive = false;
    for (const p of compiled) if (p.test(path)) sensitive = p.sensitive;
    return sensitive;
  };
}

/**
 * Why writing these paths asks even in auto-edit: the ones among them that run code later without
 * the user asking (the agent's CODE_RUNNING_FILES list). Undefined when none does.
 */
export function codeRunningReason(paths: readonly string[]): string | undefined {
  const hits = paths.flatMap((path) => {
    const entry = codeRunningFile(path);
    return entry ? [`${path} (${entry.runs})`] : [];
  });
  if (hits.length === 0) return undefined;
  return `${hits.join(", ")} ${hits.length === 1 ? "runs" : "run"} code later without asking`;
}
