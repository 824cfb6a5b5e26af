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
 * project (the user's recorded decision or `--trust-project`). Without trust, only PreToolUse
 * hooks act, confined, since restricting never waits for trust; the rest are ignored with a
 * warning. User-level hooks are the user's own and always run.
 */
export function projectHooksGate(options: {
  readonly sources: readonly HookSource[];
  readonly trustProject: boolean;
}): ProjectHooksDecision {
  const project = options.sources.filter((s) => s.scope === "project");
  if (project.length === 0 || options.trustProject) return { allowed: true };
  const blocking = project.some((s) => (s.hooks.PreToolUse ?? []).length > 0);
  const others =
    !blocking || project.some((s) => Object.keys(s.hooks).some((event) => event !== "PreToolUse"));
  const files = project.map((s) => s.file).join(", ");
  return {
    allowed: false,
    warning: [
      ...(blocking
        ? [
            `The PreToolUse hooks of ${files} run confined (sandboxed: no network, read-only, your home hidden) because this project is not trusted; they can block or ask about a call, not allow or change it, and where no sandbox is available the calls they guard ask instead.`,
          ]
        : []),
      ...(others
        ? [
            `Ignored the other hooks of ${files}: project hooks run commands, so they only run when you trust this project (start attractor with --trust-project).`,
          ]
        : []),
    ].join(" "),
  };
}

/**
 * The hook sources that may act: the user's, plus the project's when the gate allows them; when
 * it does not, the project's PreToolUse hooks alone, marked confined (they can only block).
 */
export function trustedHookSources(
  sources: readonly HookSource[],
  decision: ProjectHooksDecision,
): HookSource[] {
  return sources.flatMap((s): HookSource[] => {
    if (s.scope === "user" || decision.allowed) return [s];
    const guards = s.hooks.PreToolUse ?? [];
    return guards.length > 0 ? [{ ...s, hooks: { PreToolUse: guards }, confined: true }] : [];
  });
}
