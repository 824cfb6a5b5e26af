import * as path from "node:path";
import type { ExecutionEnvironment } from "../types/environment.js";
import { COMMON_PROJECT_DOCS } from "./project-docs.js";

/** The most of one folder's instructions a reminder carries. */
const NESTED_DOC_MAX_BYTES = 16 * 1024;

/**
 * Instruction files of sub-folders, loaded as Claude Code loads nested CLAUDE.md files: when the
 * agent reads or edits a file below the working directory, the AGENTS.md, CLAUDE.md,
 * CLAUDE.local.md and GEMINI.md (and `providerFiles`) of each folder between the working
 * directory and the file that the system prompt does not already hold are returned as one
 * reminder, once per folder for the session. Files outside the working directory add nothing.
 */
export function createNestedDocs(
  env: ExecutionEnvironment,
  options: { readonly providerFiles?: readonly string[] } = {},
): (filePath: string) => Promise<string | undefined> {
  const names = [...new Set([...COMMON_PROJECT_DOCS, ...(options.providerFiles ?? [])])];
  const visited = new Set<string>();
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
      for (const name of names) {
        const file = path.join(dir, name);
        try {
          if (!(await env.stat(file))?.isFile) continue;
          const content = (await env.readFile(file)).trim();
          if (content === "" || seen.has(content)) continue;
          seen.add(content);
          const text =
            Buffer.byteLength(content) > NESTED_DOC_MAX_BYTES
              ? `${Buffer.from(content).subarray(0, NESTED_DOC_MAX_BYTES).toString("utf8")}\n[truncated]`
              : content;
          parts.push(`<project_instructions path="${file}">\n${text}\n</project_instructions>`);
        } catch {
          // An unreadable instructions file is skipped, as at start-up.
        }
      }
    }
    if (parts.length === 0) return undefined;
    return `<system-reminder>\nInstructions for the folder of the file just used (they apply to files under it and take precedence over those nearer the root):\n${parts.join("\n\n")}\n</system-reminder>`;
  };
}
