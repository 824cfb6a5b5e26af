import { type Static, Type } from "@sinclair/typebox";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";
import { unifiedDiff } from "./diff.js";
import { inFileConventions } from "./edit/file-text.js";
import { decodeUtf8 } from "./shared/text-file.js";
import { errorOutput, expectedFailure } from "./shared/tool-errors.js";

const DESCRIPTION =
  "Writes a file, replacing it if it exists and creating missing parent directories. The write is atomic and keeps an existing file's permissions, CRLF line endings and byte-order mark. Prefer editing for changes to existing files.";

/** Executes write_file: atomic write through the environment; reports bytes and a diff. */
export async function writeFileExecutor(args: WriteFileArgs, env: ExecutionEnvironment): Promise<ToolOutput> {
  try {
    const { file_path: path } = args;
    const existing = await env.stat(path);
    if (existing?.isDirectory) return errorOutput(`${path} is a directory, not a file.`);
    const before =
      existing === undefined
        ? undefined
        : existing.size > MAX_DIFF_BYTES
          ? null
          : await previousText(env, path);
    // Over an existing text file, its line breaks and BOM stay: the model saw neither.
    const content = typeof before === "string" ? inFileConventions(before, args.content) : args.content;
    await env.writeFile(path, content);
    const bytesWritten = Buffer.byteLength(content, "utf8");
    const diff = before === null ? "" : unifiedDiff(path, before, content);
    const verb = existing === undefined ? "Created" : "Wrote";
    return {
      output: `${verb} ${path} (${bytesWritten} bytes).`,
      details: { path, bytesWritten, diff },
    };
  } catch (err) {
    return expectedFailure(err);
  }
}

// Larger previous versions are not read back just to show a diff.
const MAX_DIFF_BYTES = 4 * 1024 * 1024;

// null: the previous content was not text, so no diff is shown.
async function previousText(env: ExecutionEnvironment, path: string): Promise<string | null> {
  try {
    return decodeUtf8(await env.readFileBytes(path), path);
  } catch {
    return null;
  }
}

const WRITE_FILE_PARAMETERS = Type.Object(
  {
    file_path: Type.String({
      description: "Path of the file (absolute or relative to the working directory).",
    }),
    content: Type.String({ description: "The complete new content of the file." }),
  },
  { additionalProperties: false },
);

/** write_file's arguments. */
export type WriteFileArgs = Static<typeof WRITE_FILE_PARAMETERS>;

/** The write_file tool. */
export function writeFileTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "write_file",
    description: DESCRIPTION,
    parameters: WRITE_FILE_PARAMETERS,
    execute: (args, { environment }) => writeFileExecutor(args, environment),
    targets: (args) => [args.file_path],
  });
}
