import type { GrepMatch, GrepOutputMode, GrepResult } from "../types/environment.js";
import type { RegisteredTool, ToolExecutor, ToolOutput } from "../types/tool.js";
import { builtinSchema } from "./schema.js";

export interface GrepToolOptions {
  /** Offer output_mode (content / files_with_matches / count), as the Anthropic profile does. */
  readonly outputModes?: boolean;
}

function formatMatch(m: GrepMatch): string[] {
  const lines: string[] = [];
  const before = m.before ?? [];
  for (let i = 0; i < before.length; i++) lines.push(`${m.path}-${m.line - before.length + i}-${before[i]}`);
  lines.push(`${m.path}:${m.line}:${m.text}`);
  const after = m.after ?? [];
  for (let i = 0; i < after.length; i++) lines.push(`${m.path}-${m.line + 1 + i}-${after[i]}`);
  return lines;
}

/** Renders a GrepResult like ripgrep: `path:line:text`, `path-line-text` for context, `--` between groups. */
export function formatGrepResult(result: GrepResult, withContext: boolean): string {
  if (result.total === 0) return "No matches found.";
  let body: string;
  if (result.mode === "content") {
    if (withContext) body = result.matches.map((m) => formatMatch(m).join("\n")).join("\n--\n");
    else body = result.matches.map((m) => `${m.path}:${m.line}:${m.text}`).join("\n");
  } else if (result.mode === "count") {
    body = result.files.map((f) => `${f.path}:${f.count}`).join("\n");
  } else {
    body = result.files.map((f) => f.path).join("\n");
  }
  if (!result.truncated) return body;
  const shown = result.mode === "content" ? result.matches.length : result.files.length;
  const what = result.mode === "content" ? "matching lines" : "files";
  if (result.stoppedEarly === true) {
    return `${body}\n\n[Results truncated: showing the first ${shown} ${what} found; more exist (the search stopped there, so their number is not known). Narrow the pattern, path or glob_filter, or raise max_results.]`;
  }
  return `${body}\n\n[Results truncated: showing ${shown} of ${result.total} ${what}. Narrow the pattern, path or glob_filter, or raise max_results.]`;
}

function executor(): ToolExecutor {
  return async (args, env, ctx): Promise<ToolOutput> => {
    const mode = (args.output_mode as GrepOutputMode | undefined) ?? "content";
    const context = typeof args.context_lines === "number" ? args.context_lines : 0;
    const result = await env.grep(String(args.pattern), typeof args.path === "string" ? args.path : ".", {
      outputMode: mode,
      ...(typeof args.glob_filter === "string" && { globFilter: args.glob_filter }),
      ...(typeof args.case_insensitive === "boolean" && { caseInsensitive: args.case_insensitive }),
      ...(typeof args.max_results === "number" && { maxResults: args.max_results }),
      ...(context > 0 && { contextLines: context }),
      ...(ctx.signal !== undefined && { signal: ctx.signal }),
    });
    const files = new Set(
      result.mode === "content" ? result.matches.map((m) => m.path) : result.files.map((f) => f.path),
    );
    return {
      output: formatGrepResult(result, context > 0),
      details: {
        matchCount: result.total,
        fileCount: files.size,
        engine: result.engine,
        truncated: result.truncated,
        ...(result.stoppedEarly === true && { stoppedEarly: true }),
      },
    };
  };
}

/** The `grep` tool: regex search over files (ripgrep when available), .gitignore honoured. */
export function grepTool(options: GrepToolOptions = {}): RegisteredTool {
  const properties: Record<string, unknown> = {
    pattern: { type: "string", minLength: 1, description: "Regular expression to search for." },
    path: { type: "string", description: "File or directory to search (default: the working directory)." },
    glob_filter: {
      type: "string",
      description: 'Only search files matching this glob, e.g. "*.py" or "src/**/*.ts".',
    },
    case_insensitive: { type: "boolean", description: "Ignore case (default false)." },
    max_results: { type: "integer", minimum: 1, description: "Maximum results returned (default 100)." },
    context_lines: {
      type: "integer",
      minimum: 0,
      maximum: 50,
      description: "Lines of context around each match.",
    },
  };
  if (options.outputModes) {
    properties.output_mode = {
      type: "string",
      enum: ["content", "files_with_matches", "count"],
      description:
        "content: matching lines (default); files_with_matches: file paths; count: matches per file.",
    };
  }
  return {
    definition: {
      name: "grep",
      description:
        "Search file contents with a regular expression. Returns matching lines as path:line:text, sorted by path. Honours .gitignore and skips hidden and binary files.",
      parameters: builtinSchema({
        type: "object",
        properties,
        required: ["pattern"],
        additionalProperties: false,
      }),
    },
    executor: executor(),
    readOnly: true,
  };
}
