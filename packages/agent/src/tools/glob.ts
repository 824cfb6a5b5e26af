import { Type } from "@sinclair/typebox";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";

/** The `glob` tool: files matching a glob pattern, newest first, .gitignore honoured. */
export function globTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "glob",
    description:
      'Find files by name with a glob pattern such as "**/*.ts" or "src/**/test_*.py". Returns paths sorted by modification time, newest first. Honours .gitignore and skips hidden files.',
    parameters: Type.Object(
      {
        pattern: Type.String({ minLength: 1, description: 'Glob pattern, e.g. "**/*.ts".' }),
        path: Type.Optional(
          Type.String({ description: "Directory to search (default: the working directory)." }),
        ),
      },
      { additionalProperties: false },
    ),
    execute: async (args, ctx): Promise<ToolOutput> => {
      const result = await ctx.environment.glob(
        args.pattern,
        args.path ?? ".",
        ctx.signal ? { signal: ctx.signal } : {},
      );
      if (result.total === 0) return { output: "No files found.", details: { fileCount: 0 } };
      let output = result.paths.join("\n");
      if (result.truncated) {
        output += `\n\n[Showing the ${result.paths.length} newest of ${result.total} matching files. Use a more specific pattern or path to see others.]`;
      }
      return { output, details: { fileCount: result.total, truncated: result.truncated } };
    },
    readOnly: true,
  });
}
