import type { SandboxPolicy } from "./policy.js";

/** Quotes a path as an SBPL string literal. */
function literal(path: string): string {
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

function rule(action: string, filters: readonly string[]): string[] {
  return filters.length === 0 ? [] : [`(${action}`, ...filters.map((f) => `  ${f}`), ")"];
}

/**
 * EXPERIMENTAL (macOS): the Seatbelt profile, for `sandbox-exec -p`, that applies the same
 * policy as the bubblewrap sandbox: everything readable but the hidden paths, writes only in the
 * writable roots (minus their protected git files) and the private temporary directory, no
 * network unless allowed, signals only within the sandbox. Paths must be real paths (/private/…),
 * as Seatbelt matches them after symlinks are resolved. SBPL applies the last matching rule, so
 * the denials come after the allowances they narrow.
 */
export function seatbeltProfile(policy: SandboxPolicy, layout: { readonly tmpDir: string }): string {
  const writable = [layout.tmpDir, ...(policy.mode === "workspace-write" ? policy.writableRoots : [])];
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow ipc-posix-shm)",
    "(allow pseudo-tty)",
    "(allow mach-lookup)",
    "(allow file-read*)",
    ...rule("allow file-write*", [
      ...writable.map((p) => `(subpath ${literal(p)})`),
      '(literal "/dev/null")',
      '(literal "/dev/zero")',
      '(literal "/dev/dtracehelper")',
      '(regex #"^/dev/tty")',
      '(regex #"^/dev/fd/")',
    ]),
    ...rule(
      "deny file-write*",
      (policy.mode === "workspace-write"
        ? [...policy.readOnlyPaths, ...(policy.placeholderPaths ?? [])]
        : []
      ).map((p) => `(subpath ${literal(p)})`),
    ),
    ...rule(
      "deny file-read* file-write*",
      policy.hiddenPaths.map((p) => `(subpath ${literal(p)})`),
    ),
    ...(policy.network ? ["(allow network*)", "(allow system-socket)"] : []),
  ];
  return `${lines.join("\n")}\n`;
}
