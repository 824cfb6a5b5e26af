import { Type } from "@sinclair/typebox";
import type { DirEntry } from "../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";

const MAX_DEPTH = 10;

/** A compact human size: 812 B, 4.1 KB, 2.3 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Renders entries (sorted by path) as an indented tree: directories end with "/", files show sizes. */
export function formatListing(root: string, entries: readonly DirEntry[]): string {
  const lines = [`${root.endsWith("/") ? root : `${root}/`}`];
  for (const e of entries) {
    const depth = e.path.split("/").length;
    const indent = "  ".repeat(depth);
    lines.push(
      e.isDir
        ? `${indent}${e.name}/`
        : `${indent}${e.name}${e.size !== undefined ? ` (${formatSize(e.size)})` : ""}`,
    );
  }
  return lines.join("\n");
}

/** The `list_dir` tool: a directory's entries down to a depth, .gitignore honoured. */
export function listDirTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "list_dir",
    description:
      "List a directory as a tree: directories end with /, files show their size. Honours .gitignore and skips hidden entries such as .git.",
    parameters: Type.Object(
      {
        path: Type.Optional(
          Type.String({ description: "Directory to list (default: the working directory)." }),
        ),
        depth: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: MAX_DEPTH,
            description: "How many levels to show (default 1: direct children).",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    execute: async (args, { environment }): Promise<ToolOutput> => {
      const path = args.path ?? ".";
      const entries = await environment.listDirectory(path, args.depth ?? 1);
      if (entries.length === 0) return { output: `${path} is empty.`, details: { fileCount: 0 } };
      return {
        output: formatListing(path, entries),
        details: { fileCount: entries.filter((e) => !e.isDir).length, entryCount: entries.length },
      };
    },
    readOnly: true,
  });
}
