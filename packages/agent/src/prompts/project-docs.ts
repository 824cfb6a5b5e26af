import { homedir } from "node:os";
import * as path from "node:path";
import type { ExecutionEnvironment } from "../types/environment.js";
import { importReferences, MAX_IMPORT_DEPTH, resolveImport } from "./doc-imports.js";

/** Total size of project instructions included in a system prompt. */
export const PROJECT_DOCS_BUDGET_BYTES = 32 * 1024;
export const PROJECT_DOCS_TRUNCATION_MARKER = "[Project instructions truncated at 32KB]";

/** The universal instructions file, loaded for every profile. */
export const UNIVERSAL_PROJECT_DOC = "AGENTS.md";

/**
 * The instruction files every profile reads, whatever the provider, so a project set up for
 * Claude Code or gemini-cli works with any model. Profiles add their own (.codex/instructions.md).
 */
export const COMMON_PROJECT_DOCS: readonly string[] = [
  UNIVERSAL_PROJECT_DOC,
  "CLAUDE.md",
  "CLAUDE.local.md",
  "GEMINI.md",
];

/** One instructions file found on the way from the root to the working directory. */
export interface ProjectDoc {
  /** Absolute path. */
  readonly path: string;
  readonly content: string;
}

export interface ProjectDocsResult {
  /** Files in load order: root first, deeper later (deeper takes precedence). */
  readonly docs: readonly ProjectDoc[];
  /** The combined text within the budget, ready for the prompt; "" when nothing was found. */
  readonly text: string;
  readonly truncated: boolean;
}

/** The directories from root down to dir inclusive; just [dir] when dir is not inside root. */
export function directoriesFromRoot(root: string, dir: string): string[] {
  const rel = path.relative(root, dir);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return [dir];
  const dirs = [root];
  let current = root;
  for (const part of rel.split(path.sep).filter((p) => p !== "")) {
    current = path.join(current, part);
    dirs.push(current);
  }
  return dirs;
}

/**
 * Reads the host's user-level files first (`userFiles`, absolute paths such as
 * ~/.attractor/AGENTS.md), then AGENTS.md, CLAUDE.md, GEMINI.md and the profile's own files
 * (.codex/instructions.md…) in each directory from the git root (or the working directory
 * outside a repository) down to the working directory, and joins them within a 32 KB budget. A
 * file whose text equals one already read (a symlink such as CLAUDE.md → AGENTS.md, a hard
 * link, a copy) is read once. Each file's `@path` imports (outside code) follow it, up to
 * MAX_IMPORT_DEPTH deep, when they resolve inside the project (git root or working directory)
 * or the home directory; others are not read.
 */
export async function discoverProjectDocs(
  env: ExecutionEnvironment,
  options: {
    /** Provider-specific file names, relative to each directory. */
    readonly providerFiles: readonly string[];
    readonly gitRoot?: string;
    readonly budgetBytes?: number;
    /** Absolute paths read before the project's files (user-level instructions). */
    readonly userFiles?: readonly string[];
    /** The home directory `~/` imports resolve against (default the process's). */
    readonly homeDir?: string;
  },
): Promise<ProjectDocsResult> {
  const cwd = env.workingDirectory();
  const names = [...new Set([...COMMON_PROJECT_DOCS, ...options.providerFiles])];
  const docs: ProjectDoc[] = [];
  const seen = new Set<string>();
  const home = options.homeDir ?? homedir();
  const roots = [options.gitRoot ?? cwd, cwd, home];
  const read = async (file: string, depth = 0): Promise<void> => {
    let content: string;
    try {
      const stat = await env.stat(file);
      if (!stat?.isFile) return;
      content = await env.readFile(file);
    } catch {
      // An unreadable instructions file is skipped, not fatal.
      return;
    }
    if (content.trim() === "" || seen.has(content)) return;
    seen.add(content);
    docs.push({ path: file, content });
    if (depth >= MAX_IMPORT_DEPTH) return;
    for (const ref of importReferences(content)) {
      const target = resolveImport(ref, file, home, roots);
      if (target !== undefined) await read(target, depth + 1);
    }
  };
  for (const file of options.userFiles ?? []) await read(file);
  for (const dir of directoriesFromRoot(options.gitRoot ?? cwd, cwd)) {
    for (const name of names) await read(path.join(dir, name));
  }
  return joinWithinBudget(docs, options.budgetBytes ?? PROJECT_DOCS_BUDGET_BYTES);
}

function joinWithinBudget(docs: readonly ProjectDoc[], budget: number): ProjectDocsResult {
  if (docs.length === 0) return { docs, text: "", truncated: false };
  const full = docs
    .map((d) => `<project_instructions path="${d.path}">\n${d.content.trimEnd()}\n</project_instructions>`)
    .join("\n\n");
  const bytes = Buffer.from(full, "utf8");
  if (bytes.length <= budget) return { docs, text: full, truncated: false };
  // Cut on a character boundary: drop a partial trailing UTF-8 sequence.
  let end = budget;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return {
    docs,
    text: `${bytes.subarray(0, end).toString("utf8")}\n${PROJECT_DOCS_TRUNCATION_MARKER}`,
    truncated: true,
  };
}
