import type { ExecResult, SandboxBlock, SandboxBlockKind } from "../../types/environment.js";
import type { SandboxPolicy } from "./policy.js";

const WRITE_BLOCKED = /read-only file system|\bEROFS\b/i;
const NETWORK_BLOCKED =
  /network is unreachable|\bENETUNREACH\b|could not resolve|temporary failure in name resolution|name or service not known|\bEAI_AGAIN\b|getaddrinfo|connection refused|\bECONNREFUSED\b|no address associated with hostname|unable to resolve host/i;

/** Failures of tools whose keys the sandbox hides (signing with gpg, ssh authentication). */
const CREDENTIAL_MISSING = /gpg failed to sign|signing failed: no secret key|permission denied \(publickey/i;

/** Words for the model about what the sandbox allows. */
export function describeSandbox(policy: SandboxPolicy): string {
  const writes =
    policy.mode === "workspace-write"
      ? `writes only inside ${policy.writableRoots.join(", ")} and /tmp`
      : "no writes except in /tmp";
  return `${policy.mode}: ${writes}; ${policy.network ? "network allowed" : "no network"}`;
}

const REASONS: Record<SandboxBlockKind, string> = {
  "write-outside": "it tried to write outside the directories the sandbox makes writable",
  network: "it tried to use the network, which the sandbox turns off",
  "hidden-path": "it tried to read a credential path the sandbox hides",
};

/**
 * Recognises a failure caused by the sandbox: a non-zero exit whose output reports a read-only
 * file system, an unreachable network (when the network is off), a hidden credential path, or a
 * signing or ssh key that is missing because its folder is hidden.
 * Undefined for successes, timeouts, aborts and failures that show none of these.
 */
export function detectSandboxBlock(
  result: ExecResult,
  policy: SandboxPolicy,
  hint: string,
): SandboxBlock | undefined {
  if (result.exitCode === 0 || result.timedOut || result.aborted) return undefined;
  const lines = result.output.split("\n");
  const find = (test: (line: string) => boolean): string | undefined => lines.find(test)?.trim();
  const found: [SandboxBlockKind, string | undefined][] = [
    ["hidden-path", find((l) => policy.hiddenPaths.some((p) => l.includes(p)) || CREDENTIAL_MISSING.test(l))],
    ["write-outside", find((l) => WRITE_BLOCKED.test(l))],
    ["network", policy.network ? undefined : find((l) => NETWORK_BLOCKED.test(l))],
  ];
  for (const [kind, evidence] of found) {
    if (evidence === undefined) continue;
    return {
      kind,
      evidence: evidence.length > 300 ? `${evidence.slice(0, 300)}…` : evidence,
      message: `[sandbox] This command ran in a sandbox (${describeSandbox(policy)}) and ${REASONS[kind]}: ${evidence}\nDo not try to get around the sandbox. ${hint}`,
    };
  }
  return undefined;
}
