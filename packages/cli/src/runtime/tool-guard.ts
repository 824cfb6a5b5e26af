import type { BeforeToolCallHook, ProfileToolRegistry, ToolCallInfo } from "@attractor/agent";
import type { CheckpointManager } from "../checkpoints/index.js";
import { assessCommandLine, callKind, type PermissionPolicy } from "../permissions/index.js";
import { summarizeCall } from "./call-summary.js";

/** Whether a call may change files, so the project is snapshotted before it runs. */
export function mayChangeFiles(call: ToolCallInfo, registry: ProfileToolRegistry): boolean {
  switch (callKind(call.toolName)) {
    case "edit":
      return true;
    case "shell": {
      const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
      return !assessCommandLine(command).readOnly;
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
 * The session's beforeToolCall: the permission policy decides; an allowed call that may change
 * files is preceded by a checkpoint (shell commands too, since they change files the tools never
 * see). A failing snapshot is reported and the call still runs: checkpoints protect work, they
 * must not stop it.
 */
export function createToolGuard(options: {
  readonly policy: PermissionPolicy;
  /** Absent where no checkpoint can be taken (a remote project). */
  readonly checkpoints: CheckpointManager | undefined;
  readonly registry: () => ProfileToolRegistry;
  readonly userMessageId: () => string | undefined;
  readonly onSnapshotError: (error: unknown) => void;
}): BeforeToolCallHook {
  return async (call) => {
    const decision = await options.policy.beforeToolCall(call);
    if (decision !== undefined && decision.action === "deny") return decision;
    if (options.checkpoints !== undefined && mayChangeFiles(call, options.registry())) {
      try {
        const userMessageId = options.userMessageId();
        await options.checkpoints.snapshot({
          label: summarizeCall(call.toolName, call.arguments),
          toolName: call.toolName,
          ...(userMessageId !== undefined && { userMessageId }),
        });
      } catch (error) {
        options.onSnapshotError(error);
      }
    }
    return decision;
  };
}
