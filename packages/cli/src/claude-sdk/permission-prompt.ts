import { claudeCodeNamesOf, withClaudeCodeFields } from "@attractor/agent";
import {
  type PermissionAnswer,
  type PermissionMode,
  type PermissionRequest,
  permissionSuggestions,
  readPermissionResult,
} from "@attractor/runtime";
import { type ControlChannel, ControlRequestError } from "./control-channel.js";

/**
 * The permission question of a headless run put to the Claude Agent SDK's `canUseTool` as a
 * `can_use_tool` control request. Allow runs the call (with `updatedInput` when given; the deny
 * rules and the tool's schema judge it again) and grants `updatedPermissions`' allow rules for
 * the session; deny gives the model `message`, and `interrupt: true` stops the turn. No answer,
 * an error, a late or garbled answer, or the client going away is a denial, never a wait.
 */
export function sdkPermissionPrompt(
  channel: ControlChannel,
  options: {
    readonly timeoutMs?: number;
    /** A `setMode` permission update. */
    readonly setMode?: (mode: PermissionMode) => void;
    /** Reports updates that are not honoured, and answers that could not be read. */
    readonly warn: (message: string) => void;
  },
): (request: PermissionRequest) => Promise<PermissionAnswer> {
  return async (request) => {
    const { call } = request;
    let answer: Record<string, unknown>;
    try {
      answer = await channel.request(
        {
          subtype: "can_use_tool",
          tool_name: claudeCodeNamesOf(call.toolName)[0] ?? call.toolName,
          input: withClaudeCodeFields(call.toolName, call.arguments),
          permission_suggestions: permissionSuggestions(request),
          tool_use_id: call.callId,
          decision_reason: request.reason,
          ...(request.paths[0] !== undefined && { blocked_path: request.paths[0] }),
        },
        options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {},
      );
    } catch (error) {
      const why =
        error instanceof ControlRequestError
          ? error.reason === "error"
            ? `the permission callback failed: ${error.message}`
            : `no answer from the permission callback (${error.message})`
          : String(error);
      return { answer: "deny", message: `${why}; the call was not run.` };
    }
    return readPermissionResult(answer, call, {
      ...(options.setMode && { setMode: options.setMode }),
      warn: options.warn,
    });
  };
}
