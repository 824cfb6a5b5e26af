import { homedir } from "node:os";
import * as path from "node:path";
import type { ExecutionEnvironment } from "../types/environment.js";
import { importReferences, MAX_IMPORT_DEPTH, resolveImport } from "./doc-imports.js";
import { COMMON_PROJECT_DOCS } from "./project-docs.js";

/** The most of one folder's instructions a reminder carries. */
const NESTED_DOC_MAX_BYTES = 16 * 1024;

/**
 * Instruction files of sub-folders, loaded as Claude Code loads nested CLAUDE.md files: when the
 * agent reads or edits a file below the working directory, the AGENTS.md, CLAUDE.md,
 * CLAUDE.local.md and GEMINI.md (and `providerFiles`) of each folder between the working
 * directory and the file that the system prompt does not already hold are returned as one
 * reminder, once per folder for the session, with the files their `@path` imports name (as at
 * start-up: five deep, inside the working directory or the home directory, each file once).
 * Files outside the working directory add nothing.
 */
export function createNestedDocs(
  env: ExecutionEnvironment,
  options: {
    readonly providerFiles?: readonly string[];
    /** The home directory `~/` imports resolve against (default the process's). */
    readonly homeDir?: string;
  } = {},
): (filePath: string) => Promise<string | undefined> {
  const names = [...new Set([...COMMON_PROJECT_DOCS, ...(options.providerFiles ?? [])])];
  const home = options.homeDir ?? homedir();
  const visited = new Set<string>();
  /** Files already given this session, imports included. */
  const given = new Set<string>();
  return async (filePath) => {
    const cwd = env.workingDirectory();
    const absolute = path.resolve(cwd, filePath);
    const rel = path.relative(cwd, path.dirname(absolute));
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
    const parts: string[] = [];
    let dir = cwd;
    for (const part of rel.split(path.sep).filter((p) => p !== "")) {
      dir = path.join(dir, part);
      if (visited.has(dir)) continue;
      visited.add(dir);
      const seen = new Set<string>();
      const add = async (file: string, depth: number): Promise<void> => {
        if (given.has(file)) return;
        try {
          if (!(await env.stat(file))?.isFile) return;
          const content = (await env.readFile(file)).trim();
          given.add(file);
          if (content === "" || seen.has(content)) return;
          seen.add(content);
          const text =
            Buffer.byteLength(content) > NESTED_DOC_MAX_BYTES
              ? `${Buffer.from(content).subarray(0, NESTED_DOC_MAX_BYTES).toString("utf8")}\n[truncated]`
              : content;
          parts.push(`<project_instructions path="${file}">\n${text}\n</project_instructions>`);
          if (depth >= MAX_IMPORT_DEPTH) return;
          for (const ref of importReferences(content)) {
            const target = resolveImport(ref, file, home, [cwd, home]);
            if (target !== undefined) await add(target, depth + 1);
          }
        } catch {
          // An unreadable instructions file is skipped, as at start-up.
        }
      };
      for (const name of names) await add(path.join(dir, name), 0);
    }
    if (parts.length === 0) return undefined;
    return `<system-reminder>\nInstructions for the folder of the file just used (they apply to files under it and take precedence over those nearer the root):\n${parts.join("\n\n")}\n</system-reminder>`;
  };
}
