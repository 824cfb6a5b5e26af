import { claudeCodeNamesOf, type ToolCallInfo } from "@attractor/agent";
import { fromClaudeCodeFields } from "@attractor/agent/internals";
import { type PermissionMode, toPermissionMode } from "../permissions/modes.js";
import type { PermissionAnswer, PermissionRequest } from "../permissions/policy.js";

/** One rule as the Claude Agent SDK writes it: `{ toolName: "Bash", ruleContent: "npm test:*" }`. */
export interface PermissionRuleValue {
  readonly toolName: string;
  readonly ruleContent?: string;
}

/** A rule of ours (`shell(npm test:*)`) as the SDK's rule value, in Claude Code's tool names. */
function ruleValue(rule: string): PermissionRuleValue {
  const match = /^([^(]+)(?:\((.*)\))?$/s.exec(rule.trim());
  const name = match?.[1] ?? rule;
  const toolName = claudeCodeNamesOf(name)[0] ?? name;
  return match?.[2] !== undefined ? { toolName, ruleContent: match[2] } : { toolName };
}

/** The SDK's permission updates the call's "always allow" would make (its `suggestions`). */
export function permissionSuggestions(request: PermissionRequest): {
  type: "addRules";
  rules: PermissionRuleValue[];
  behavior: "allow";
  destination: "session";
}[] {
  if (!request.canAllowAlways || request.alwaysRules.length === 0) return [];
  return [
    {
      type: "addRules",
      rules: request.alwaysRules.map(ruleValue),
      behavior: "allow",
      destination: "session",
    },
  ];
}

/**
 * What a program's permission updates mean here: allow rules (settings syntax) to grant for the
 * session, a mode to switch to, and the updates not honoured (named by the caller, never applied).
 */
export function readPermissionUpdates(updates: unknown): {
  rules: string[];
  mode?: PermissionMode;
  ignored: string[];
} {
  const rules: string[] = [];
  const ignored: string[] = [];
  let mode: PermissionMode | undefined;
  for (const update of Array.isArray(updates) ? updates : []) {
    const u = update as { type?: unknown; behavior?: unknown; rules?: unknown; mode?: unknown };
    if (u?.type === "addRules" && u.behavior === "allow" && Array.isArray(u.rules)) {
      for (const r of u.rules as { toolName?: unknown; ruleContent?: unknown }[]) {
        if (typeof r?.toolName !== "string" || r.toolName === "") continue;
        rules.push(typeof r.ruleContent === "string" ? `${r.toolName}(${r.ruleContent})` : r.toolName);
      }
    } else if (u?.type === "setMode" && typeof u.mode === "string" && toPermissionMode(u.mode)) {
      mode = toPermissionMode(u.mode);
    } else {
      ignored.push(`${String(u?.type)}${typeof u?.behavior === "string" ? ` (${u.behavior})` : ""}`);
    }
  }
  return { rules, ...(mode !== undefined && { mode }), ignored };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A program's answer to a permission question (the Claude Agent SDK's PermissionResult, from
 * `canUseTool` or a `can_use_tool` reply) as the policy's answer. Allow runs the call, with
 * `updatedInput` in our field names (the policy judges it again) and `updatedPermissions`' allow
 * rules for the session; a `setMode` update goes to `setMode`, others to `warn`. Deny carries its
 * message, and `interrupt: true` stops the run. Anything else is a denial, never a yes.
 */
export function readPermissionResult(
  answer: unknown,
  call: ToolCallInfo,
  host: { readonly setMode?: (mode: PermissionMode) => void; readonly warn: (message: string) => void },
): PermissionAnswer {
  const result = isObject(answer) ? answer : {};
  if (result.behavior === "deny") {
    const message = typeof result.message === "string" ? result.message : undefined;
    return {
      answer: result.interrupt === true ? "abort" : "deny",
      ...(message !== undefined && { message }),
    };
  }
  if (result.behavior !== "allow") {
    host.warn(`canUseTool answered ${JSON.stringify(answer)?.slice(0, 200)}: read as a denial`);
    return { answer: "deny", message: "the permission callback gave no decision; the call was not run." };
  }
  if (result.updatedInput !== undefined && !isObject(result.updatedInput))
    return { answer: "deny", message: "the permission callback's updatedInput is not an object." };
  const updates = readPermissionUpdates(result.updatedPermissions);
  if (updates.mode !== undefined) host.setMode?.(updates.mode);
  if (updates.ignored.length > 0) host.warn(`permission updates not honoured: ${updates.ignored.join(", ")}`);
  return {
    answer: "allow_once",
    ...(isObject(result.updatedInput) && {
      arguments: fromClaudeCodeFields(call.toolName, result.updatedInput, call.arguments),
    }),
    ...(updates.rules.length > 0 && { rules: updates.rules }),
  };
}
