import type { ToolCallData } from "@attractor/llm";
import type { ReadOnlyMode, SessionConfig } from "../types/config.js";
import type { RegisteredTool } from "../types/tool.js";
import { isGitReadCommand } from "./git-read.js";

/**
 * Tool rounds per input in a read-only mode when the config sets no limit (0). Lower than
 * unlimited because a mode that changes nothing should not wander; high enough to read a large
 * change in review.
 */
export const READ_ONLY_DEFAULT_MAX_TOOL_ROUNDS = 40;

/** The tool review mode opens to git read commands. */
const SHELL = "shell";

/** Every read-only mode. */
export const READ_ONLY_MODES: readonly ReadOnlyMode[] = ["explore", "plan", "review"];

/** Whether a value names a read-only mode. */
export function isReadOnlyMode(value: unknown): value is ReadOnlyMode {
  return typeof value === "string" && (READ_ONLY_MODES as readonly string[]).includes(value);
}

/** Whether the tool is offered to the model in the mode: read-only tools, plus the shell in review. */
export function offeredInMode(mode: ReadOnlyMode | undefined, tool: RegisteredTool): boolean {
  if (mode === undefined) return true;
  return tool.readOnly === true || (mode === "review" && tool.definition.name === SHELL);
}

const INSTEAD: Readonly<Record<ReadOnlyMode, string>> = {
  explore: "Answer from what you can read instead.",
  plan: "Put the change in your plan instead of making it.",
  review: "Report it as a finding instead of fixing it.",
};

/**
 * Why a call may not run in the mode, as the error result the model reads, or undefined when it
 * may. Unknown tools are left to the round, which reports them as unknown.
 */
export function refusalInMode(
  mode: ReadOnlyMode | undefined,
  call: ToolCallData,
  tool: RegisteredTool | undefined,
): string | undefined {
  if (mode === undefined || tool === undefined || tool.readOnly === true) return undefined;
  if (mode === "review" && call.name === SHELL) {
    const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
    if (isGitReadCommand(command)) return undefined;
    return `Refused in review mode: the shell runs only git read commands (git status, git diff, git log, git show, git blame, git grep…), one at a time, without pipes, redirection or chaining. "${command}" did not run.`;
  }
  return `Refused in ${mode} mode: ${call.name} can change files or run commands, and this mode is read-only, so it did not run. ${INSTEAD[mode]}`;
}

/** The effective tool-round limit per input: the configured one, at most 40 in a read-only mode. */
export function maxToolRoundsFor(
  config: Pick<SessionConfig, "maxToolRoundsPerInput" | "readOnlyMode">,
): number {
  const configured = config.maxToolRoundsPerInput;
  if (config.readOnlyMode === undefined) return configured;
  return configured > 0
    ? Math.min(configured, READ_ONLY_DEFAULT_MAX_TOOL_ROUNDS)
    : READ_ONLY_DEFAULT_MAX_TOOL_ROUNDS;
}
