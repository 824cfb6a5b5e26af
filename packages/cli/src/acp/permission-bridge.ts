import { resolve } from "node:path";
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallContent,
} from "@agentclientprotocol/sdk";
import type { AskAnswer, PermissionRequest } from "@attractor/runtime/permissions";
import { callLocations, outputBlock, textContent, toolKind, toolTitle } from "./tool-calls.js";

/** The options a permission request offers, with the ids the answers come back by. */
export const PERMISSION_OPTION_IDS = {
  allowOnce: "allow_once",
  allowAlways: "allow_always",
  rejectOnce: "reject_once",
} as const;

/** Reads a file's current text for a preview; undefined when it cannot be read. */
export type TextReader = (absolutePath: string) => Promise<string | undefined>;

/**
 * The `session/request_permission` for a request the permission policy would put to the user in
 * the terminal: the call with its diff or command, and the same choices (once, always with the
 * rules "always" adds, reject).
 */
export async function permissionRequest(
  sessionId: string,
  request: PermissionRequest,
  cwd: string,
  read: TextReader,
): Promise<RequestPermissionRequest> {
  const { call } = request;
  const options: PermissionOption[] = [
    { optionId: PERMISSION_OPTION_IDS.allowOnce, name: "Allow once", kind: "allow_once" },
  ];
  if (request.canAllowAlways && request.alwaysRules.length > 0)
    options.push({
      optionId: PERMISSION_OPTION_IDS.allowAlways,
      name: `Always allow ${request.alwaysRules.join(", ")} in this session`,
      kind: "allow_always",
    });
  options.push({ optionId: PERMISSION_OPTION_IDS.rejectOnce, name: "Reject", kind: "reject_once" });
  const content = await previewContent(request, cwd, read);
  return {
    sessionId,
    toolCall: {
      toolCallId: call.callId,
      title: toolTitle(call.toolName, call.arguments),
      kind: toolKind(call.toolName, call.arguments),
      status: "pending",
      locations: callLocations(call.toolName, call.arguments, cwd),
      rawInput: call.arguments,
      content: [...content, textContent(request.reason)],
    },
    options,
  };
}

/** The policy's answer for the editor's: a cancelled prompt (the turn is being stopped) denies. */
export function answerOf(response: RequestPermissionResponse): AskAnswer {
  if (response.outcome.outcome !== "selected") return "deny";
  switch (response.outcome.optionId) {
    case PERMISSION_OPTION_IDS.allowOnce:
      return "allow_once";
    case PERMISSION_OPTION_IDS.allowAlways:
      return "allow_always";
    default:
      return "deny";
  }
}

/** What the call would do: the command, or the file as the edit would leave it. */
async function previewContent(
  request: PermissionRequest,
  cwd: string,
  read: TextReader,
): Promise<ToolCallContent[]> {
  const args = request.call.arguments;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  if (request.kind === "shell" || request.command !== undefined) {
    const command = request.command ?? str(args.command) ?? "";
    return [textContent(outputBlock(`$ ${command}`))];
  }
  const file = str(args.file_path) ?? str(args.path);
  if (file === undefined) return [];
  const path = resolve(cwd, file);
  if (request.call.toolName === "write_file") {
    const newText = str(args.content);
    if (newText === undefined) return [];
    return [{ type: "diff", path, oldText: (await read(path)) ?? null, newText }];
  }
  if (request.call.toolName === "edit_file") {
    const oldString = str(args.old_string);
    const newString = str(args.new_string);
    const before = await read(path);
    if (oldString === undefined || newString === undefined || before === undefined || oldString === "")
      return [];
    // Only a preview that is exactly what the edit would write: the text occurs once (or all
    // occurrences are replaced). Anything else the tool itself decides on, and shows afterwards.
    const count = before.split(oldString).length - 1;
    if (count === 0 || (count > 1 && args.replace_all !== true)) return [];
    const after =
      args.replace_all === true
        ? before.split(oldString).join(newString)
        : before.replace(oldString, () => newString);
    return [{ type: "diff", path, oldText: before, newText: after }];
  }
  return [];
}
