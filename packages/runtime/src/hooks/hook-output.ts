import type { CommandRun } from "./run-command.js";

/** The JSON a hook may print on stdout (Claude Code's fields). */
export interface HookJson {
  readonly continue?: boolean;
  readonly stopReason?: string;
  readonly suppressOutput?: boolean;
  readonly systemMessage?: string;
  /** "block" (PostToolUse, Stop, SubagentStop, UserPromptSubmit); "approve" (older PreToolUse). */
  readonly decision?: string;
  readonly reason?: string;
  readonly hookSpecificOutput?: {
    readonly hookEventName?: string;
    readonly permissionDecision?: "allow" | "deny" | "ask";
    readonly permissionDecisionReason?: string;
    readonly updatedInput?: Readonly<Record<string, unknown>>;
    readonly additionalContext?: string;
  };
}

/** One hook's result, read from its exit code and output. */
export type HookVerdict =
  /** Exit 0: go on; `json` when stdout was a JSON object, else its text. */
  | { readonly kind: "ok"; readonly stdout: string; readonly json?: HookJson }
  /** Exit 2: block; stderr goes to the model (or the user, by event). */
  | { readonly kind: "block"; readonly message: string }
  /** Any other exit, a timeout, a failure to start: a non-blocking error shown to the user. */
  | { readonly kind: "error"; readonly message: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads stdout as hook JSON when it is a JSON object; undefined otherwise (plain text). */
export function parseHookJson(stdout: string): HookJson | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const specific = isObject(value.hookSpecificOutput) ? value.hookSpecificOutput : undefined;
  const permission = str(specific?.permissionDecision);
  const json: HookJson = {
    ...(typeof value.continue === "boolean" && { continue: value.continue }),
    ...(str(value.stopReason) !== undefined && { stopReason: str(value.stopReason)! }),
    ...(typeof value.suppressOutput === "boolean" && { suppressOutput: value.suppressOutput }),
    ...(str(value.systemMessage) !== undefined && { systemMessage: str(value.systemMessage)! }),
    ...(str(value.decision) !== undefined && { decision: str(value.decision)! }),
    ...(str(value.reason) !== undefined && { reason: str(value.reason)! }),
    ...(specific && {
      hookSpecificOutput: {
        ...(str(specific.hookEventName) !== undefined && { hookEventName: str(specific.hookEventName)! }),
        ...((permission === "allow" || permission === "deny" || permission === "ask") && {
          permissionDecision: permission,
        }),
        ...(str(specific.permissionDecisionReason) !== undefined && {
          permissionDecisionReason: str(specific.permissionDecisionReason)!,
        }),
        ...(isObject(specific.updatedInput) && { updatedInput: specific.updatedInput }),
        ...(str(specific.additionalContext) !== undefined && {
          additionalContext: str(specific.additionalContext)!,
        }),
      },
    }),
  };
  return json;
}

/** The verdict of a finished command: exit 0 / exit 2 / anything else. */
export function verdictOf(command: string, run: CommandRun, timeoutMs: number): HookVerdict {
  if (run.spawnError !== undefined) {
    return { kind: "error", message: `hook "${command}" could not start: ${run.spawnError}` };
  }
  if (run.timedOut) {
    return {
      kind: "error",
      message: `hook "${command}" timed out after ${Math.round(timeoutMs / 1000)} s and was stopped`,
    };
  }
  if (run.exitCode === 0) {
    const json = parseHookJson(run.stdout);
    return { kind: "ok", stdout: run.stdout, ...(json !== undefined && { json }) };
  }
  if (run.exitCode === 2) {
    const message = run.stderr.trim() || `hook "${command}" blocked this (exit 2) without saying why`;
    return { kind: "block", message };
  }
  const detail = run.stderr.trim() || run.stdout.trim();
  return {
    kind: "error",
    message: `hook "${command}" failed (${run.exitCode === undefined ? "killed by a signal" : `exit ${run.exitCode}`})${detail ? `: ${detail.slice(0, 2000)}` : ""}`,
  };
}
