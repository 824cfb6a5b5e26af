import type { FleetTask } from "./task.js";

/**
 * What a worker lets a task ask for. Each list left out allows anything; a list given allows only
 * its entries. Whoever can write to the queue can then do no more than the worker's operator allows.
 */
export interface WorkerPolicy {
  /** Permission modes a task may run in (`default`, `accept-edits`, `plan`, `yolo`, …). */
  readonly modes?: readonly string[];
  /** The mode of a task that names none (yolo when absent, or the first allowed mode when yolo is not allowed). */
  readonly defaultMode?: string;
  /** Repositories: an entry ending in `/` or `*` allows every repository starting with what precedes the `*`; others must match exactly. */
  readonly repos?: readonly string[];
  /** SSH hosts for `remote` (`[user@]host:/path`, same matching as repos); an empty list forbids remote tools. */
  readonly remotes?: readonly string[];
  /** Providers a task may name. */
  readonly providers?: readonly string[];
  /** Whether a task may turn the network on for the agent's commands (no). */
  readonly network?: boolean;
  /** Whether a task may bring its own setup command (no: it runs unsandboxed, with network). */
  readonly taskSetup?: boolean;
  /** Whether a task may push a branch or open a pull request with the worker's credentials (no). */
  readonly push?: boolean;
}

/** A task asked for more than its worker allows. */
export class PolicyRefusal extends Error {
  override readonly name = "PolicyRefusal";
  constructor(
    readonly field: "mode" | "repo" | "remote" | "provider" | "network" | "setup" | "output",
    readonly value: string,
  ) {
    super(`refused by the worker's policy: ${field} "${value}" is not allowed here`);
  }
}

/** The one name of each permission mode, whatever alias a task or policy spells it with. */
const CANONICAL_MODE: Readonly<Record<string, string>> = {
  plan: "plan",
  normal: "normal",
  default: "normal",
  "auto-edit": "auto-edit",
  auto_edit: "auto-edit",
  acceptEdits: "auto-edit",
  "accept-edits": "auto-edit",
  yolo: "yolo",
  bypassPermissions: "yolo",
};

/** A mode's canonical name; an unknown name stays as it is (and so matches only itself). */
export const canonicalMode = (mode: string): string => CANONICAL_MODE[mode] ?? mode;

const matches = (patterns: readonly string[], value: string): boolean =>
  patterns.some((p) =>
    p.endsWith("*") ? value.startsWith(p.slice(0, -1)) : p.endsWith("/") ? value.startsWith(p) : value === p,
  );

/** The permission mode a task runs in under a policy. */
export function effectiveMode(task: FleetTask, policy: WorkerPolicy): string {
  if (task.mode !== undefined) return task.mode;
  if (policy.defaultMode !== undefined) return policy.defaultMode;
  if (policy.modes === undefined || policy.modes.map(canonicalMode).includes("yolo")) return "yolo";
  return policy.modes[0] ?? "yolo";
}

/** Throws PolicyRefusal when the task asks for a mode, repository, remote or provider the policy does not allow. */
export function checkPolicy(task: FleetTask, policy: WorkerPolicy): void {
  const mode = effectiveMode(task, policy);
  if (policy.modes !== undefined && !policy.modes.map(canonicalMode).includes(canonicalMode(mode)))
    throw new PolicyRefusal("mode", mode);
  if (policy.repos !== undefined && !matches(policy.repos, task.repo))
    throw new PolicyRefusal("repo", task.repo);
  if (task.remote !== undefined && policy.remotes !== undefined && !matches(policy.remotes, task.remote))
    throw new PolicyRefusal("remote", task.remote);
  if (
    task.provider !== undefined &&
    policy.providers !== undefined &&
    !policy.providers.includes(task.provider)
  )
    throw new PolicyRefusal("provider", task.provider);
  if (task.network === true && policy.network !== true) throw new PolicyRefusal("network", "on");
  if (task.setup !== undefined && policy.taskSetup !== true) throw new PolicyRefusal("setup", task.setup);
  if (task.output !== undefined && policy.push !== true) throw new PolicyRefusal("output", task.output);
}
