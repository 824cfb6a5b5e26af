import type { ExecutionEnvironment } from "../types/environment.js";

/** The state of the repository when the session started. */
export interface GitSnapshot {
  /** Absolute path of the repository's top level. */
  readonly root: string;
  /** Undefined on a detached HEAD. */
  readonly branch?: string;
  readonly modified: number;
  readonly untracked: number;
  readonly staged: number;
  /** `git log --oneline`, newest first. */
  readonly recentCommits: readonly string[];
}

const SEPARATOR = "\u0001--attractor-git--\u0001";

/**
 * Reads branch, short status counts and the last commits with one command through the
 * environment (so it works in a container too); undefined outside a git repository. The branch
 * comes from the header of `git status --porcelain=v2 --branch` (git 2.11 or later), one git
 * process fewer on the way to the first request than asking `git symbolic-ref` for it.
 */
export async function captureGitSnapshot(
  env: ExecutionEnvironment,
  options: { readonly commits?: number; readonly timeoutMs?: number } = {},
): Promise<GitSnapshot | undefined> {
  const n = options.commits ?? 10;
  const sep = `printf '%s\\n' '${SEPARATOR}'`;
  // The three git commands run at once, each on the left of a pipe whose right side prints what
  // it read in order: the top level (or exit 3 outside a repository), the status, the log.
  const script = [
    `git log --oneline -n ${n} 2>/dev/null | {`,
    "git status --porcelain=v2 --branch 2>/dev/null | {",
    "root=$(git rev-parse --show-toplevel 2>/dev/null) || exit 3;",
    `printf '%s\\n' "$root"; ${sep}; cat;`,
    `} || exit 3; ${sep}; cat; }`,
  ].join(" ");
  let result: Awaited<ReturnType<ExecutionEnvironment["execCommand"]>>;
  try {
    result = await env.execCommand(script, { timeoutMs: options.timeoutMs ?? 5000 });
  } catch {
    return undefined;
  }
  if (result.exitCode === 3 || result.timedOut) return undefined;
  const sections = result.stdout.split(`${SEPARATOR}\n`);
  const [rootText, statusText, logText] = sections;
  const root = rootText?.trim();
  if (!root) return undefined;
  let modified = 0;
  let untracked = 0;
  let staged = 0;
  let branch: string | undefined;
  for (const line of (statusText ?? "").split("\n")) {
    if (line.startsWith("# branch.head ")) {
      // "(detached)" on a detached HEAD; the branch's name (committed to or not) otherwise.
      const head = line.slice("# branch.head ".length).trim();
      if (head !== "(detached)") branch = head;
      continue;
    }
    if (line.startsWith("? ")) {
      untracked++;
      continue;
    }
    // Changed ("1"), renamed or copied ("2") and unmerged ("u") entries: "<kind> <XY> …", where
    // X is the index's state and Y the work tree's, "." for unchanged.
    const kind = line[0];
    if ((kind !== "1" && kind !== "2" && kind !== "u") || line[1] !== " ") continue;
    if (line[2] !== ".") staged++;
    if (line[3] !== ".") modified++;
  }
  return {
    root,
    ...(branch ? { branch } : {}),
    modified,
    untracked,
    staged,
    recentCommits: (logText ?? "")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== ""),
  };
}

/** The snapshot as a prompt section. */
export function formatGitSnapshot(snapshot: GitSnapshot): string {
  const lines = [
    "<git_status>",
    "This is the repository state when the session started; it is not updated as you work.",
    `Branch: ${snapshot.branch ?? "(detached HEAD)"}`,
    `Status: ${snapshot.staged} staged, ${snapshot.modified} modified, ${snapshot.untracked} untracked`,
  ];
  if (snapshot.recentCommits.length > 0) {
    lines.push("Recent commits:");
    for (const c of snapshot.recentCommits) lines.push(`  ${c}`);
  } else {
    lines.push("Recent commits: (none)");
  }
  lines.push("</git_status>");
  return lines.join("\n");
}
