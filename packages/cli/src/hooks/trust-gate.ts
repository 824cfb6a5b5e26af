import type { HookSource } from "../config/index.js";

/** Whether the project's own hooks may run, and what to tell the user when they may not. */
export interface ProjectHooksDecision {
  readonly allowed: boolean;
  /** Set when project hooks exist and are ignored. */
  readonly warning?: string;
}

/**
 * The one gate project-sourced hooks (.attractor/settings.json, .claude/settings.json) pass
 * through: they run shell commands someone else may have written, so they act only for a trusted
 * project. Until a general project-trust decision exists, trust is the user's explicit
 * `--trust-project` for this run (interactive and headless alike); without it the hooks are
 * ignored with a warning. User-level hooks are the user's own and always run.
 */
export function projectHooksGate(options: {
  readonly sources: readonly HookSource[];
  readonly trustProject: boolean;
}): ProjectHooksDecision {
  const project = options.sources.filter((s) => s.scope === "project");
  if (project.length === 0 || options.trustProject) return { allowed: true };
  return {
    allowed: false,
    warning: `Ignored the hooks of ${project.map((s) => s.file).join(", ")}: project hooks run commands, so they only run when you trust this project (start attractor with --trust-project).`,
  };
}

/** The hook sources that may act: the user's, plus the project's when the gate allows them. */
export function trustedHookSources(
  sources: readonly HookSource[],
  decision: ProjectHooksDecision,
): HookSource[] {
  return sources.filter((s) => s.scope === "user" || decision.allowed);
}
