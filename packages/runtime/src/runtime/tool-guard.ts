import { isAbsolute, resolve } from "node:path";
import type {
  BeforeToolCallDecision,
  BeforeToolCallHook,
  ProfileToolRegistry,
  ToolCallInfo,
} from "@attractor/agent";
import type { CheckpointManager } from "../checkpoints/index.js";
import type { PreToolUseVerdict } from "../hooks/index.js";
import {
  callKind,
  callPaths,
  type PermissionAnswer,
  type PermissionPolicy,
  type PermissionRequest,
} from "../permissions/index.js";
import { summarizeCall } from "./call-summary.js";

/**
 * Whether a call may change files, so the project is snapshotted before it runs: a shell line
 * unless every command in it is judged read-only (one not understood counts as changing files).
 */
export async function mayChangeFiles(
  call: ToolCallInfo,
  registry: ProfileToolRegistry,
  policy: Pick<PermissionPolicy, "assessShell">,
): Promise<boolean> {
  switch (callKind(call.toolName)) {
    case "edit":
      return true;
    case "shell": {
      const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
      return !(await policy.assessShell(command)).readOnly;
    }
    case "read":
    case "interaction":
    case "agent":
      // Subagents' own calls pass through this hook themselves.
      return false;
    default:
      return registry.get(call.toolName)?.readOnly !== true;
  }
}

/**
 * Whether the checkpoint before a call also keeps a copy of the project's own git repository: a
 * shell line that is critical (allowed by the user), not understood, or runs code whose effect
 * cannot be read (`python -c …`), any of which may delete .git's files or move its history.
 */
export async function repositoryAtRisk(
  call: ToolCallInfo,
  policy: Pick<PermissionPolicy, "assessShell">,
): Promise<boolean> {
  if (callKind(call.toolName) !== "shell") return false;
  const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
  const line = await policy.assessShell(command);
  return line.tier === "critical" || !line.understood || line.commands.some((c) => c.opaque === true);
}

/**
 * The session's beforeToolCall: PreToolUse hooks first (they may deny, allow without asking,
 * insist on asking, or change the arguments), then the permission policy decides; an allowed call
 * that may change files is preceded by a checkpoint (shell commands too, since they change files
 * the tools never see). A failing snapshot is reported and the call still runs: checkpoints
 * protect work, they must not stop it.
 */
export function createToolGuard(options: {
  readonly policy: PermissionPolicy;
  /** Absent where no checkpoint can be taken (a remote project). */
  readonly checkpoints: CheckpointManager | undefined;
  readonly registry: () => ProfileToolRegistry;
  readonly userMessageId: () => string | undefined;
  readonly onSnapshotError: (error: unknown) => void;
  /** PreToolUse command hooks. */
  readonly preToolUse?: (call: ToolCallInfo) => Promise<PreToolUseVerdict>;
  /** Asks the user when a hook insists; undefined when nobody can be asked (headless). */
  readonly ask?: (request: PermissionRequest) => Promise<PermissionAnswer>;
  /** A hook asked to stop the run. */
  readonly onHalt?: (reason: string) => void;
}): BeforeToolCallHook {
  return async (original) => {
    const verdict = options.preToolUse ? await options.preToolUse(original) : ({ kind: "none" } as const);
    if (verdict.halt !== undefined) options.onHalt?.(verdict.halt);
    if (verdict.kind === "deny") return { action: "deny", message: verdict.message };
    const asked = verdict.arguments ? { ...original, arguments: verdict.arguments } : original;
    let decision: BeforeToolCallDecision | undefined;
    if (verdict.kind === "allow") decision = undefined;
    else if (verdict.kind === "ask")
      decision = await askAnyway(asked, verdict.reason ?? "a hook asks", options);
    else decision = await options.policy.beforeToolCall(asked);
    if (decision !== undefined && decision.action === "deny") return decision;
    // Arguments changed by whoever answered the permission question win over a hook's change.
    if (verdict.arguments && decision?.action !== "rewrite")
      decision = { action: "rewrite", arguments: verdict.arguments };
    // The checkpoint covers what the call will touch, with the arguments it runs with.
    const call = decision?.action === "rewrite" ? { ...asked, arguments: decision.arguments } : asked;
    if (
      options.checkpoints !== undefined &&
      (await mayChangeFiles(call, options.registry(), options.policy))
    ) {
      try {
        const userMessageId = options.userMessageId();
        const meta = {
          label: summarizeCall(call.toolName, call.arguments),
          toolName: call.toolName,
          ...(userMessageId !== undefined && { userMessageId }),
        };
        // The edit tools name every file they touch: only those are read now, the rest of the
        // tree in the background. Anything else (shell, other tools) gets the whole tree read now.
        const base = call.workingDirectory;
        const targets = (
          callKind(call.toolName) === "edit" ? callPaths(call.toolName, call.arguments) : []
        ).map((p) => (base === undefined || isAbsolute(p) || p.startsWith("~") ? p : resolve(base, p)));
        if (targets.length > 0) {
          const { committed } = await options.checkpoints.snapshotFiles(meta, targets, call.callId);
          committed.catch(options.onSnapshotError);
        } else if (await repositoryAtRisk(call, options.policy)) {
          // The repository's copy must be whole before the call can touch .git.
          await options.checkpoints.snapshot({ ...meta, withRepository: true });
        } else {
          // The call may start once the tree is read; the commit is written meanwhile.
          const { committed } = await options.checkpoints.snapshotStaged(meta);
          committed.catch(options.onSnapshotError);
        }
      } catch (error) {
        options.onSnapshotError(error);
      }
    }
    return decision;
  };
}

/** A hook's "ask": denied by the rules stays denied; otherwise the user is asked even where rules allow. */
async function askAnyway(
  call: ToolCallInfo,
  reason: string,
  options: {
    readonly policy: PermissionPolicy;
    readonly ask?: (request: PermissionRequest) => Promise<PermissionAnswer>;
  },
): Promise<BeforeToolCallDecision | undefined> {
  const evaluation = await options.policy.evaluate(call);
  if (evaluation.behavior === "deny") return { action: "deny", message: evaluation.message };
  if (evaluation.behavior === "ask") return options.policy.beforeToolCall(call);
  if (!options.ask) {
    return {
      action: "deny",
      message: `Permission denied: a PreToolUse hook requires confirmation (${reason}) and no user is present to give it.`,
    };
  }
  const answer = await options.ask({
    call,
    kind: callKind(call.toolName),
    reason: `a PreToolUse hook asks: ${reason}`,
    paths: callPaths(call.toolName, call.arguments),
    canAllowAlways: false,
    alwaysRules: [],
  });
  if (typeof answer === "object") {
    if (answer.answer !== "allow_once")
      return {
        action: "deny",
        message: `Permission denied: ${answer.message ?? `the user declined this ${call.toolName} call.`}`,
      };
    if (answer.arguments === undefined) return undefined;
    const again = await options.policy.evaluate({ ...call, arguments: answer.arguments });
    return again.behavior === "deny"
      ? { action: "deny", message: again.message }
      : { action: "rewrite", arguments: answer.arguments };
  }
  return answer === "allow_once" || answer === "allow_always"
    ? undefined
    : { action: "deny", message: `Permission denied: the user declined this ${call.toolName} call.` };
}
