import { readMarkdownFolder } from "@attractor/agent";
import { listField, stringField } from "@attractor/agent/internals";

/** A slash command written as a markdown file (Claude Code's format). */
export interface CustomCommand {
  /** The name typed after the slash; sub-folders namespace it: `frontend:component`. */
  readonly name: string;
  readonly description: string;
  /** Shown after the name in /help and completion, e.g. "<issue-number>". */
  readonly argumentHint?: string;
  /** Tools the command's `!` lines may run without asking, as settings rules (`shell(git status:*)`). */
  readonly allowedTools: readonly string[];
  /** The model its turn uses; the session's model when absent. */
  readonly model?: string;
  /** The prompt template: $ARGUMENTS, $1…$9, @file, !`command`. */
  readonly body: string;
  readonly file: string;
  /** Whose it is: the user's own folder, or the project's (shown in /help). */
  readonly scope: "user" | "project";
}

/** A definition file that could not be used. */
export interface DefinitionWarning {
  readonly file: string;
  readonly problem: string;
}

/**
 * Reads `*.md` command files from folders given lowest precedence first; a later folder's
 * command replaces an earlier one of the same name. `userFolders` counts the first folders that
 * are the user's own (the rest are the project's).
 */
export async function loadCustomCommands(
  folders: readonly string[],
  userFolders = 1,
): Promise<{ commands: CustomCommand[]; problems: DefinitionWarning[] }> {
  const byName = new Map<string, CustomCommand>();
  const problems: DefinitionWarning[] = [];
  for (const [index, folder] of folders.entries()) {
    const scope = index < userFolders ? "user" : "project";
    const scan = await readMarkdownFolder(folder);
    problems.push(...scan.problems);
    for (const { file, parts, document } of scan.items) {
      const name = parts.map((p) => p.toLowerCase()).join(":");
      if (!/^[a-z][\w-]*(?::[\w-]+)*$/.test(name)) {
        problems.push({ file, problem: `"${name}" cannot be a command name (letters, digits, - and _)` });
        continue;
      }
      const attrs = document.attributes;
      const description = stringField(attrs, "description") ?? firstLine(document.body) ?? "custom command";
      const argumentHint = stringField(attrs, "argument-hint");
      const model = stringField(attrs, "model");
      byName.set(name, {
        name,
        description,
        ...(argumentHint !== undefined && { argumentHint }),
        allowedTools: (listField(attrs, "allowed-tools") ?? []).map(claudeRuleToOurs),
        ...(model !== undefined && { model }),
        body: document.body,
        file,
        scope,
      });
    }
  }
  return { commands: [...byName.values()], problems };
}

function firstLine(text: string): string | undefined {
  const line = text
    .split("\n")
    .map((l) => l.replace(/^#+\s*/, "").trim())
    .find((l) => l !== "");
  return line ? line.slice(0, 80) : undefined;
}

/** Claude Code's rule names for tools, in our settings' rule syntax: `Bash(git add:*)` → `shell(git add:*)`. */
export function claudeRuleToOurs(rule: string): string {
  const m = /^([A-Za-z]+)(\(.*\))?$/.exec(rule.trim());
  if (!m) return rule.trim();
  const names: Record<string, string> = {
    Bash: "shell",
    Read: "read_file",
    Write: "write_file",
    Edit: "edit_file",
    MultiEdit: "edit_file",
    Glob: "glob",
    Grep: "grep",
    LS: "list_dir",
  };
  return `${names[m[1] as string] ?? m[1]}${m[2] ?? ""}`;
}
