/**
 * Files that run code later: the one list the permission policy (writing one asks), the sandbox
 * (commands cannot create or change one) and the checkpoint code share.
 *
 * A file belongs here when a program the user runs anyway executes what the file says without the
 * user asking for that file: on opening the folder in an editor or a container tool, on entering
 * the directory, on a git operation, on any run of a package manager, or when a coding agent
 * starts there. A file whose code runs only when the user asks for it by name does not belong:
 * `package.json` scripts and a `Makefile` run when the user runs `npm test` or `make`, commands the
 * shell rules judge, and daily work edits these files all the time, so asking for each edit would
 * teach users to approve without reading.
 */

/** When what a code-running file says is run. */
export type CodeRunningTrigger =
  | "folder-open"
  | "directory-enter"
  | "git"
  | "package-manager"
  | "agent-start";

/** One entry of the list: a file or a whole folder, named relative to the directory it acts in. */
export interface CodeRunningFile {
  /** Posix path relative to a project directory: `.envrc`, `.vscode` (a folder). */
  readonly path: string;
  readonly kind: "file" | "folder";
  readonly trigger: CodeRunningTrigger;
  /** What runs, in a few words (shown when a write asks). */
  readonly runs: string;
}

/**
 * The list. Folders are protected whole: a folder whose one file runs code (`.vscode/tasks.json`)
 * could otherwise be renamed away and made again around a new file.
 */
export const CODE_RUNNING_FILES: readonly CodeRunningFile[] = [
  { path: ".envrc", kind: "file", trigger: "directory-enter", runs: "direnv runs it on cd" },
  { path: "mise.toml", kind: "file", trigger: "directory-enter", runs: "mise runs its hooks and tasks" },
  { path: ".mise.toml", kind: "file", trigger: "directory-enter", runs: "mise runs its hooks and tasks" },
  { path: "mise.local.toml", kind: "file", trigger: "directory-enter", runs: "mise runs its hooks" },
  { path: ".mise.local.toml", kind: "file", trigger: "directory-enter", runs: "mise runs its hooks" },
  { path: ".tool-versions", kind: "file", trigger: "directory-enter", runs: "asdf and mise install plugins" },
  { path: ".vscode", kind: "folder", trigger: "folder-open", runs: "VS Code tasks, launch and settings" },
  { path: ".idea", kind: "folder", trigger: "folder-open", runs: "JetBrains run configurations" },
  { path: ".devcontainer", kind: "folder", trigger: "folder-open", runs: "dev container commands" },
  { path: ".devcontainer.json", kind: "file", trigger: "folder-open", runs: "dev container commands" },
  { path: ".husky", kind: "folder", trigger: "git", runs: "git hooks installed by husky" },
  { path: ".pre-commit-config.yaml", kind: "file", trigger: "git", runs: "pre-commit hooks" },
  { path: "lefthook.yml", kind: "file", trigger: "git", runs: "lefthook git hooks" },
  { path: ".lefthook.yml", kind: "file", trigger: "git", runs: "lefthook git hooks" },
  { path: ".gitmodules", kind: "file", trigger: "git", runs: "submodule URLs and update commands" },
  { path: ".gitattributes", kind: "file", trigger: "git", runs: "filter and diff drivers" },
  { path: ".git/hooks", kind: "folder", trigger: "git", runs: "git hooks" },
  { path: ".git/config", kind: "file", trigger: "git", runs: "git aliases, hooks path, filters" },
  { path: ".git/config.worktree", kind: "file", trigger: "git", runs: "git aliases, hooks path, filters" },
  { path: ".npmrc", kind: "file", trigger: "package-manager", runs: "npm's script shell and node options" },
  { path: ".yarnrc", kind: "file", trigger: "package-manager", runs: "yarn's yarn-path" },
  { path: ".yarnrc.yml", kind: "file", trigger: "package-manager", runs: "yarn's yarnPath and plugins" },
  { path: ".pnpmfile.cjs", kind: "file", trigger: "package-manager", runs: "pnpm's install hooks" },
  { path: "bunfig.toml", kind: "file", trigger: "package-manager", runs: "bun's preload scripts" },
  { path: ".mcp.json", kind: "file", trigger: "agent-start", runs: "MCP servers an agent starts" },
  { path: ".claude", kind: "folder", trigger: "agent-start", runs: "agent hooks, settings and commands" },
  {
    path: ".attractor",
    kind: "folder",
    trigger: "agent-start",
    runs: "attractor hooks, settings and commands",
  },
  { path: ".cursor", kind: "folder", trigger: "agent-start", runs: "agent MCP servers and rules" },
];

/** Workspace files of VS Code (tasks and settings inside), matched by their extension. */
const WORKSPACE_FILE = /\.code-workspace$/i;

/**
 * The entry a path falls under (a file of the list, or anything inside a folder of the list),
 * wherever it sits: `.envrc` acts in every directory, and a package of a monorepo has its own
 * `.vscode`. Matched without regard to case, as case-insensitive file systems open them.
 * Undefined for every other path. Paths are posix or native, relative or absolute.
 */
export function codeRunningFile(path: string): CodeRunningFile | undefined {
  const parts = path
    .split(/[/\\]+/)
    .filter((p) => p !== "" && p !== ".")
    .map((p) => p.toLowerCase());
  const last = parts[parts.length - 1];
  if (last !== undefined && WORKSPACE_FILE.test(last))
    return { path: last, kind: "file", trigger: "folder-open", runs: "VS Code workspace tasks and settings" };
  for (const entry of CODE_RUNNING_FILES) {
    const names = entry.path.toLowerCase().split("/");
    for (let i = 0; i + names.length <= parts.length; i++) {
      if (!names.every((name, j) => parts[i + j] === name)) continue;
      // A file matches as the last name only; a folder matches itself and anything under it.
      if (entry.kind === "folder" || i + names.length === parts.length) return entry;
    }
  }
  return undefined;
}

/** Whether writing this path changes what runs later without the user asking (see codeRunningFile). */
export function isCodeRunningFile(path: string): boolean {
  return codeRunningFile(path) !== undefined;
}
