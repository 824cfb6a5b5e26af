/** The files an apply_patch text names, in order. */
function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const line of patch.split("\n")) {
    const m = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line);
    if (m && !out.includes(m[1] as string)) out.push(m[1] as string);
  }
  return out;
}

/**
 * Claude Code's tool names and the tools of ours that do the same job, on every profile (a
 * profile has only some of them: codex edits through apply_patch, Claude Code through edit_file).
 */
export const CLAUDE_CODE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  Bash: ["shell"],
  Read: ["read_file", "read_many_files"],
  Write: ["write_file"],
  Edit: ["edit_file", "apply_patch"],
  MultiEdit: ["edit_file", "apply_patch"],
  Glob: ["glob"],
  Grep: ["grep"],
  LS: ["list_dir"],
  Task: ["spawn_agent"],
  TodoWrite: ["todo"],
  AskUserQuestion: ["ask_user"],
  Skill: ["skill"],
  WebFetch: ["web_fetch"],
  WebSearch: ["web_search"],
  BashOutput: ["shell_output"],
  KillShell: ["shell_kill"],
  KillBash: ["shell_kill"],
  NotebookEdit: ["notebook_edit"],
};

/** The Claude Code names that stand for our tool `name` (empty for tools Claude Code lacks). */
export function claudeCodeNamesOf(name: string): string[] {
  return Object.entries(CLAUDE_CODE_TOOL_NAMES)
    .filter(([, ours]) => ours.includes(name))
    .map(([claude]) => claude);
}

/** Our tool names a tool name written for Claude Code (or already ours) refers to. */
export function toolNamesFor(name: string): readonly string[] {
  return CLAUDE_CODE_TOOL_NAMES[name] ?? [name];
}

/**
 * A tool call's arguments with Claude Code's field names added beside ours, so hook scripts
 * written for Claude Code read what they expect (`command`, `file_path`, `timeout`…).
 */
export function withClaudeCodeFields(
  name: string,
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  const add = (key: string, value: unknown) => {
    if (value !== undefined && out[key] === undefined) out[key] = value;
  };
  switch (name) {
    case "shell":
      add("timeout", args.timeout_ms);
      break;
    case "read_file":
    case "write_file":
    case "edit_file":
      add("file_path", args.path);
      break;
    case "apply_patch": {
      const files = typeof args.patch === "string" ? patchFiles(args.patch) : [];
      add("file_path", files[0]);
      add("file_paths", files);
      break;
    }
    case "list_dir":
    case "glob":
    case "grep":
      add("path", args.dir_path);
      break;
    case "web_fetch":
      add("prompt", args.question);
      break;
    case "shell_output":
      add("bash_id", args.id);
      break;
    case "shell_kill":
      add("shell_id", args.id);
      break;
  }
  return out;
}

/**
 * Arguments a hook returned (`updatedInput`), mapped back onto our tool's fields: Claude Code's
 * `timeout` becomes `timeout_ms`, and fields only added for hooks are dropped.
 */
export function fromClaudeCodeFields(
  name: string,
  updated: Readonly<Record<string, unknown>>,
  original: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const added = withClaudeCodeFields(name, original);
  const out: Record<string, unknown> = { ...updated };
  if (name === "shell" && "timeout" in out && !("timeout" in original)) {
    if (typeof out.timeout === "number" && out.timeout !== added.timeout) out.timeout_ms = out.timeout;
    delete out.timeout;
  }
  // A hook that rewrote WebFetch's prompt meant the question.
  if (name === "web_fetch" && typeof out.prompt === "string" && out.prompt !== added.prompt)
    out.question = out.prompt;
  for (const key of Object.keys(added)) if (!(key in original)) delete out[key];
  return out;
}
