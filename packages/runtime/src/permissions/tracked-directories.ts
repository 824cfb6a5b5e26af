// Which directories of the project hold files git tracks: yolo's critical tier asks before a
// recursive delete or a move out of the project of such a directory (`rm -rf src`, `mv src /tmp`),
// while build outputs and other untracked or ignored folders (`rm -rf dist node_modules`) are
// deleted without asking. Read once per state of the index (`git ls-files`), so the check per
// shell line is a set lookup; when git cannot answer, every directory counts as holding tracked
// files (fail closed).
import { execFileSync } from "node:child_process";
import { lstatSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { absolutePath, programOnPath } from "@attractor/agent";

/** The answer for one project: the directories (posix, relative, "" the root), or why there is none. */
type TrackedDirectories = ReadonlySet<string> | "not-a-repository" | "unknown";

/** A listing of a project whose .git cannot be dated (a worktree's `.git` file) is kept this long. */
const UNDATED_MS = 2_000;

const cache = new Map<
  string,
  { readonly key: string; readonly at: number; readonly dirs: TrackedDirectories }
>();

/**
 * The state of the index and HEAD of the repository the project is in (its own .git or an
 * ancestor's: a package of a monorepo; a linked worktree's through its `.git` file), "none"
 * outside any, or undefined when a `.git` file names no git directory.
 */
function indexKey(root: string): string | "none" | undefined {
  try {
    return findIndexKey(root);
  } catch {
    // An unreadable `.git` (EACCES): undated, so git itself is asked and fails closed if it cannot say.
    return undefined;
  }
}

function findIndexKey(root: string): string | "none" | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    const dotGit = lstatSync(join(dir, ".git"), { throwIfNoEntry: false });
    if (dotGit !== undefined) {
      let gitDir = join(dir, ".git");
      if (!dotGit.isDirectory()) {
        // A linked worktree's or submodule's `.git` file names its git directory.
        const named = /^gitdir: (.+)$/m.exec(readFileSync(gitDir, "utf8"))?.[1]?.trim();
        if (named === undefined) return undefined;
        gitDir = resolve(dir, named);
      }
      const index = lstatSync(join(gitDir, "index"), { throwIfNoEntry: false });
      const head = lstatSync(join(gitDir, "HEAD"), { throwIfNoEntry: false });
      return `${gitDir}:${index?.mtimeMs ?? 0}:${index?.size ?? 0}:${head?.mtimeMs ?? 0}`;
    }
    if (dirname(dir) === dir) return "none";
  }
}

/** The directories of `root` that hold tracked files, cached per state of its index. */
function trackedDirectories(root: string): TrackedDirectories {
  const key = indexKey(root);
  if (key === "none") return "not-a-repository";
  const hit = cache.get(root);
  if (hit && (key === undefined ? Date.now() - hit.at < UNDATED_MS : hit.key === key)) return hit.dirs;
  let dirs: TrackedDirectories;
  try {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
    // git starts in the project: never the project's own `git` through a relative PATH entry.
    env.PATH = absolutePath(process.env.PATH, root);
    const git = programOnPath("git", env.PATH);
    if (!git.includes("/")) throw new Error("git not found");
    const out = execFileSync(git, ["-c", "core.fsmonitor=false", "ls-files", "-z"], {
      cwd: root,
      env,
      encoding: "utf8",
      maxBuffer: 512 * 1024 * 1024,
      timeout: 10_000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const set = new Set<string>();
    for (const path of out.split("\0")) {
      if (path === "") continue;
      set.add("");
      for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) set.add(path.slice(0, i));
    }
    dirs = set;
  } catch {
    dirs = "unknown";
  }
  cache.set(root, { key: key ?? "", at: Date.now(), dirs });
  return dirs;
}

/**
 * Whether the directory `absolute` (inside `root`) holds files git tracks: true when git says so
 * or cannot say (fail closed); false outside a git repository or for untracked and ignored folders.
 */
export function holdsTrackedFiles(root: string, absolute: string): boolean {
  const rel = relative(root, absolute);
  // `..data` is a folder of the project, not a way out of it.
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
  const dirs = trackedDirectories(root);
  if (dirs === "not-a-repository") return false;
  if (dirs === "unknown") return true;
  return dirs.has(rel.split(sep).join("/"));
}
