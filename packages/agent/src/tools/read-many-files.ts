import { type Static, Type } from "@sinclair/typebox";
import picomatch from "picomatch";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";
import { imageMediaType } from "./shared/image.js";
import { looksBinary } from "./shared/text-file.js";
import { errorOutput, expectedFailure } from "./shared/tool-errors.js";

/** Total bytes of file content one call returns; the rest is listed as left out. */
export const READ_MANY_MAX_BYTES = 256 * 1024;
/** Files one call reads at most. */
export const READ_MANY_MAX_FILES = 500;

const GLOB_CHARS = /[*?[\]{}]/;

const DESCRIPTION = `Reads several files at once and returns their contents, each after a "--- path ---" line. paths takes file paths, directories (read recursively) and glob patterns such as "src/**/*.ts"; .gitignore is honoured for directories and globs. Binary files and images are skipped. At most ${READ_MANY_MAX_BYTES / 1024} KB of content is returned; files beyond that are listed so they can be read separately.`;

/** Executes read_many_files: expands paths and globs, concatenates text files up to the size cap. */
export async function readManyFilesExecutor(
  args: ReadManyFilesArgs,
  env: ExecutionEnvironment,
): Promise<ToolOutput> {
  try {
    const patterns = args.paths;
    if (patterns.length === 0) {
      return errorOutput(
        "paths must be a non-empty list of file paths or glob patterns.",
        "invalid_argument",
      );
    }
    const excludes = args.exclude ?? [];
    const excluded = excludes.length > 0 ? picomatch(excludes, { dot: true }) : () => false;

    const files: string[] = [];
    const seen = new Set<string>();
    const notFound: string[] = [];
    for (const pattern of patterns) {
      for (const path of await expand(env, pattern, notFound)) {
        const key = env.resolvePath(path);
        if (seen.has(key) || excluded(path)) continue;
        seen.add(key);
        files.push(path);
      }
    }

    const parts: string[] = [];
    const skipped: string[] = [];
    const leftOut: string[] = [];
    let budget = READ_MANY_MAX_BYTES;
    let read = 0;
    for (const path of files) {
      if (budget <= 0 || read >= READ_MANY_MAX_FILES) {
        leftOut.push(path);
        continue;
      }
      const head = await env.readFileBytes(path, { maxBytes: 8192 });
      if (imageMediaType(head) !== undefined || looksBinary(head)) {
        skipped.push(path);
        continue;
      }
      const bytes = await env.readFileBytes(path, { maxBytes: budget + 1 });
      const cut = bytes.length > budget;
      const text = new TextDecoder().decode(cut ? bytes.subarray(0, budget) : bytes);
      budget -= Math.min(bytes.length, budget);
      read++;
      parts.push(`--- ${path} ---\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}`);
      if (cut) parts.push(`[${path} was cut at the size limit; read the rest with read_file.]\n`);
    }

    const notes: string[] = [];
    if (notFound.length > 0) notes.push(`Not found: ${notFound.join(", ")}`);
    if (skipped.length > 0) notes.push(`Skipped (binary or image): ${skipped.join(", ")}`);
    if (leftOut.length > 0) {
      notes.push(
        `Left out at the ${READ_MANY_MAX_BYTES / 1024} KB / ${READ_MANY_MAX_FILES}-file limit (read them separately): ${leftOut.join(", ")}`,
      );
    }
    if (read === 0 && parts.length === 0) {
      return errorOutput(["No text files matched.", ...notes].join("\n"));
    }
    const output = [parts.join(""), "--- End of content ---", ...notes].join("\n");
    return { output, details: { paths: files.slice(0, read + skipped.length), fileCount: read } };
  } catch (err) {
    return expectedFailure(err);
  }
}

async function expand(env: ExecutionEnvironment, pattern: string, notFound: string[]): Promise<string[]> {
  if (GLOB_CHARS.test(pattern)) {
    const result = await env.glob(pattern);
    if (result.paths.length === 0) notFound.push(pattern);
    return [...result.paths].sort();
  }
  const stat = await env.stat(pattern);
  if (stat === undefined) {
    notFound.push(pattern);
    return [];
  }
  if (!stat.isDirectory) return [pattern];
  return [...(await env.glob("**/*", pattern)).paths].sort();
}

const READ_MANY_FILES_PARAMETERS = Type.Object(
  {
    paths: Type.Array(Type.String(), {
      minItems: 1,
      description: "Files, directories or glob patterns, relative to the working directory.",
    }),
    exclude: Type.Optional(
      Type.Array(Type.String(), { description: "Glob patterns of files to leave out." }),
    ),
  },
  { additionalProperties: false },
);

/** read_many_files' arguments. */
export type ReadManyFilesArgs = Static<typeof READ_MANY_FILES_PARAMETERS>;

/** The read_many_files tool (gemini-cli's batch read; read-only). */
export function readManyFilesTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "read_many_files",
    description: DESCRIPTION,
    parameters: READ_MANY_FILES_PARAMETERS,
    execute: (args, { environment }) => readManyFilesExecutor(args, environment),
    readOnly: true,
  });
}
