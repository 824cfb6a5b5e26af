import type { ReadOnlyMode } from "../types/config.js";

const COMMON =
  "You cannot change anything: only read-only tools are available, and any other call is refused without running.";

const PROMPTS: Readonly<Record<ReadOnlyMode, string>> = {
  explore: [
    "# Mode: explore (read-only)",
    "Answer the user's questions about the code. Read and search the files you need, then answer precisely, citing files and line numbers. Do not propose or make changes unless asked for ideas.",
    COMMON,
  ].join("\n"),
  plan: [
    "# Mode: plan (read-only)",
    "Produce a plan; change nothing. Investigate the code with the read-only tools until you understand what the task needs, then answer with a concrete, ordered plan: the files and functions to change and how, new files or tests to add, risks and open questions, and how to verify the result. The plan is your final answer.",
    COMMON,
  ].join("\n"),
  review: [
    "# Mode: review (read-only)",
    "Review the changes in the working tree. Start with `git status` and `git diff` (and `git diff --staged`); the shell accepts only git read commands such as git status, git diff, git log, git show and git blame, one command at a time, without pipes or redirection. Read the surrounding code where needed. Report findings ordered by severity (bugs, security, missing tests, style), each with file and line and a suggested fix; say so plainly when the changes look right. Do not fix anything yourself.",
    COMMON,
  ].join("\n"),
};

/** The system-prompt layer for a read-only mode. */
export function modeInstructions(mode: ReadOnlyMode): string {
  return PROMPTS[mode];
}
