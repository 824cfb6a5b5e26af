import { type Static, Type } from "@sinclair/typebox";
import type { GrepMatch, GrepOutputMode, GrepResult } from "../types/environment.js";
import type { RegisteredTool, ToolCallContext, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool, StringEnum } from "./define-tool.js";

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

const COMMON = {
  pattern: Type.String({ minLength: 1, description: "Regular expression to search for." }),
  path: Type.Optional(
    Type.String({ description: "File or directory to search (default: the working directory)." }),
  ),
  glob_filter: Type.Optional(
    Type.String({ description: 'Only search files matching this glob, e.g. "*.py" or "src/**/*.ts".' }),
  ),
  case_insensitive: Type.Optional(Type.Boolean({ description: "Ignore case (default false)." })),
  max_results: Type.Optional(
    Type.Integer({ minimum: 1, description: "Maximum results returned (default 100)." }),
  ),
  context_lines: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 50, description: "Lines of context around each match." }),
  ),
};

const OUTPUT_MODE = StringEnum(["content", "files_with_matches", "count"], {
  description: "content: matching lines (default); files_with_matches: file paths; count: matches per file.",
});

// With output modes (the Anthropic profile's variant); the other variant is this without output_mode.
const GREP_PARAMETERS = Type.Object(
  { ...COMMON, output_mode: Type.Optional(OUTPUT_MODE) },
  { additionalProperties: false },
);
type GrepArgs = Static<typeof GREP_PARAMETERS>;

async function runGrep(args: GrepArgs, ctx: ToolCallContext): Promise<ToolOutput> {
  const mode: GrepOutputMode = args.output_mode ?? "content";
  const context = args.context_lines ?? 0;
  const result = await ctx.environment.grep(args.pattern, args.path ?? ".", {
    outputMode: mode,
    ...(args.glob_filter !== undefined && { globFilter: args.glob_filter }),
    ...(args.case_insensitive !== undefined && { caseInsensitive: args.case_insensitive }),
    ...(args.max_results !== undefined && { maxResults: args.max_results }),
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
}

/** The `grep` tool: regex search over files (ripgrep when available), .gitignore honoured. */
export function grepTool(options: GrepToolOptions = {}): RegisteredTool {
  const common = {
    name: "grep",
    description:
      "Search file contents with a regular expression. Returns matching lines as path:line:text, sorted by path. Honours .gitignore and skips hidden and binary files.",
    execute: runGrep,
    readOnly: true,
  } as const;
  return options.outputModes
    ? defineBuiltinTool({ ...common, parameters: GREP_PARAMETERS })
    : defineBuiltinTool({ ...common, parameters: Type.Object(COMMON, { additionalProperties: false }) });
}
