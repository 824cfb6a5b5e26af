import { spawn } from "node:child_process";
import { ripgrepCommand } from "@attractor/agent";

/** Files listed at most: enough for any project one mentions files of by hand. */
const MAX_FILES = 50_000;

/**
 * The project's files, relative and with forward slashes, as ripgrep lists them: .gitignore (in a git
 * repository or not),
 * .ignore and hidden-file rules honoured (hidden files are kept, .git is not). Empty when ripgrep
 * is missing or fails: completion then simply offers nothing.
 */
export function listProjectFiles(projectDir: string): Promise<readonly string[]> {
  return new Promise((resolve) => {
    const files: string[] = [];
    let rest = "";
    // The agent's ripgrep (an absolute path): started in the project, a bare "rg" could be the project's own.
    const child = spawn(
      ripgrepCommand(),
      ["--files", "--hidden", "--no-require-git", "--glob", "!.git", "--sort", "path"],
      {
        cwd: projectDir,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line !== "" && files.length < MAX_FILES) files.push(line);
      if (files.length >= MAX_FILES) child.kill();
    });
    child.on("error", () => resolve([]));
    child.on("close", () => resolve(files));
  });
}

/** Directories holding the files (each with a trailing slash), for mentioning a whole directory. */
export function directoriesOf(files: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const file of files) {
    for (let i = file.indexOf("/"); i >= 0; i = file.indexOf("/", i + 1)) dirs.add(file.slice(0, i + 1));
  }
  return [...dirs];
}

/**
 * Paths matching `query` fuzzily (its characters in order, case-insensitively), best first: a
 * match in the file name beats one spread over directories, then tighter and shorter matches.
 */
export function fuzzyMatch(paths: readonly string[], query: string, limit = 8): string[] {
  if (query === "") return [...paths].sort((a, b) => a.length - b.length).slice(0, limit);
  const q = query.toLowerCase();
  const scored: { path: string; score: number }[] = [];
  for (const path of paths) {
    const score = matchScore(path.toLowerCase(), q);
    if (score !== undefined) scored.push({ path, score });
  }
  scored.sort((a, b) => a.score - b.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return scored.slice(0, limit).map((s) => s.path);
}

/** Lower is better; undefined when `q` is not a subsequence of `path`. */
function matchScore(path: string, q: string): number | undefined {
  const name = path.slice(path.lastIndexOf("/", path.length - 2) + 1);
  if (path.startsWith(q)) return 0;
  if (name.startsWith(q)) return 1;
  if (path.includes(q)) return 2 + path.indexOf(q) / 1000;
  let at = -1;
  let first = -1;
  for (const ch of q) {
    at = path.indexOf(ch, at + 1);
    if (at < 0) return undefined;
    if (first < 0) first = at;
  }
  // The span the match covers: the tighter, the better.
  return 3 + (at - first) / 100;
}
