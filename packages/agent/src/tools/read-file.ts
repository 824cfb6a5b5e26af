import { basename, dirname } from "node:path";
import { type Static, Type } from "@sinclair/typebox";
import { SMALL_FILE_BYTES } from "../environment/file-io.js";
import { cutLongLine } from "../environment/line-cut.js";
import { windowLines } from "../environment/line-reader.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";
import { isNotebookPath, readNotebook } from "./notebook/read-notebook.js";
import { looksLikePdf } from "./pdf/pdf-text.js";
import { readPdfText } from "./pdf/read-pdf.js";
import { imageMediaType } from "./shared/image.js";
import { similarNames } from "./shared/similar-names.js";
import { looksBinary } from "./shared/text-file.js";
import { errorOutput, expectedFailure } from "./shared/tool-errors.js";

/** Lines returned when the call gives no limit. */
export const DEFAULT_READ_LIMIT = 2000;
/** In files above WHOLE_LINES_MAX_BYTES, characters kept of a single line; the rest is replaced by a marker. */
export const MAX_LINE_LENGTH = 2000;
/**
 * Files up to this size are read with their lines whole, so a host sees all of a long line in the
 * event stream; the model's copy is cut by output truncation (read_file: 50,000 characters, head
 * and tail kept, with the truncation marker). Larger files are streamed with lines cut at
 * MAX_LINE_LENGTH, which keeps memory flat whatever the file holds.
 */
export const WHOLE_LINES_MAX_BYTES = 10 * 1024 * 1024;
/** Images above this size are refused rather than sent to the model. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
// Below this size the file's line count is worth computing for an out-of-range offset.
const COUNT_LINES_MAX_BYTES = 8 * 1024 * 1024;

const DESCRIPTION = `Reads a file and returns its lines numbered as "N | content". By default up to ${DEFAULT_READ_LIMIT} lines from the start; use offset (1-based line) and limit for other parts of long files. Output longer than 50,000 characters is shortened (start and end kept, with a marker); in files above ${WHOLE_LINES_MAX_BYTES / 1024 / 1024} MB, lines longer than ${MAX_LINE_LENGTH} characters are cut. Images (PNG, JPEG, GIF, WebP) are returned as images. Jupyter notebooks (.ipynb) are shown as cells with their outputs (offset and limit then count cells); PDFs as the text of their pages (offset and limit count pages, 50 by default); a PDF read whole, up to 100 pages and 10 MB, reaches models that read PDFs as the document itself. Binary files are not shown.`;

/** Executes read_file: a numbered window of a text file (streamed), or an image. */
export async function readFileExecutor(args: ReadFileArgs, env: ExecutionEnvironment): Promise<ToolOutput> {
  try {
    const path = args.file_path;
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LIMIT;

    const stat = await env.stat(path);
    if (stat === undefined) return errorOutput(await notFoundMessage(env, path), "ENOENT");
    if (stat.isDirectory) {
      return errorOutput(`${path} is a directory, not a file. Use list_dir or glob to see what it contains.`);
    }
    if (stat.size === 0) return { output: `(${path} is empty)`, details: { path, linesRead: 0 } };
    // A notebook is read as cells with their outputs; offset and limit count cells.
    if (isNotebookPath(path)) return await readNotebook(env, path, args.offset, args.limit);

    // A small file is read once, whole, and windowed here; a larger one is read in parts.
    const bytes = stat.size <= SMALL_FILE_BYTES ? await env.readFileBytes(path) : undefined;
    const head = bytes?.subarray(0, 8192) ?? (await env.readFileBytes(path, { maxBytes: 8192 }));
    const mediaType = imageMediaType(head);
    if (mediaType !== undefined) return readImage(env, path, mediaType, stat.size, bytes);
    // A PDF is read as the text of its pages; offset and limit count pages.
    if (looksLikePdf(head))
      return await readPdfText(bytes ?? (await env.readFileBytes(path)), path, args.offset, args.limit);
    if (looksBinary(head)) {
      return errorOutput(
        `${path} is a binary file (${stat.size} bytes); its content cannot be shown as text.`,
      );
    }

    // One line more than asked tells whether the file goes on.
    const whole = stat.size <= WHOLE_LINES_MAX_BYTES;
    const source = bytes === undefined ? envLines(env, path) : memoryLines(decodeUtf8(bytes));
    const raw = await source.window(offset, limit + 1, whole ? undefined : MAX_LINE_LENGTH);
    let lines = raw === "" ? [] : raw.split("\n");
    if (raw === "" && (await lineExists(source, offset))) lines = [""];
    if (lines.length === 0) {
      const total = stat.size <= COUNT_LINES_MAX_BYTES ? countLines(await source.all()) : undefined;
      return errorOutput(
        `offset ${offset} is past the end of ${path}${total === undefined ? "" : ` (${total} lines)`}.`,
      );
    }
    // The byte-order mark is encoding, not content.
    if (offset === 1 && lines[0]?.startsWith("\uFEFF")) lines[0] = lines[0].slice(1);
    const more = lines.length > limit;
    if (more) lines = lines.slice(0, limit);
    const last = offset + lines.length - 1;
    const width = String(last).length;
    let output = lines
      .map(
        (line, i) =>
          `${String(offset + i).padStart(width)} | ${whole ? line : cutLongLine(line, MAX_LINE_LENGTH)}`,
      )
      .join("\n");
    if (more) {
      output += `\n\n[Showing lines ${offset}-${last}. The file has more lines: call read_file with offset=${last + 1} to continue.]`;
    }
    return { output, details: { path, linesRead: lines.length } };
  } catch (err) {
    return expectedFailure(err);
  }
}

/** Where read_file takes its lines from: the environment, or a small file's text read whole. */
interface LineSource {
  /** `limit` lines from the 1-based line `offset`, joined by "\n"; "" when there is none. */
  window(offset: number, limit: number, maxLineLength?: number): Promise<string>;
  /** The whole text. */
  all(): Promise<string>;
}

const envLines = (env: ExecutionEnvironment, path: string): LineSource => ({
  window: (offset, limit, maxLineLength) =>
    env.readFile(path, { offset, limit, ...(maxLineLength !== undefined && { maxLineLength }) }),
  all: () => env.readFile(path),
});

const memoryLines = (text: string): LineSource => ({
  window: async (offset, limit, maxLineLength) =>
    windowLines(text, { offset, limit, ...(maxLineLength !== undefined && { maxLineLength }) }),
  all: async () => text,
});

const decodeUtf8 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");

// A window returns "" both for "no line there" and for one empty line: two lines from the line
// before tell them apart, since two joined lines always contain a line break.
async function lineExists(lines: LineSource, offset: number): Promise<boolean> {
  if (offset === 1) return true; // size > 0, so line 1 exists
  return (await lines.window(offset - 1, 2, 1)).includes("\n");
}

function countLines(text: string): number {
  if (text === "") return 0;
  let count = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return text.endsWith("\n") ? count - 1 : count;
}

async function readImage(
  env: ExecutionEnvironment,
  path: string,
  mediaType: string,
  size: number,
  read: Uint8Array | undefined,
): Promise<ToolOutput> {
  if (size > MAX_IMAGE_BYTES) {
    return errorOutput(`${path} is an image of ${size} bytes, above the ${MAX_IMAGE_BYTES}-byte limit.`);
  }
  const bytes = read ?? (await env.readFileBytes(path));
  return {
    output: `Image ${path} (${mediaType}, ${bytes.length} bytes).`,
    image: { data: Buffer.from(bytes).toString("base64"), mediaType },
    details: { path, linesRead: 0, mediaType },
  };
}

async function notFoundMessage(env: ExecutionEnvironment, path: string): Promise<string> {
  const absolute = env.resolvePath(path);
  const dir = dirname(absolute);
  let suggestions: string[] = [];
  try {
    const entries = await env.listDirectory(dir, 1);
    suggestions = similarNames(
      basename(absolute),
      entries.map((e) => e.name),
    ).map((name) => (path.includes("/") ? `${dirname(path)}/${name}` : name));
  } catch {
    // No directory either: nothing to suggest.
  }
  const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(", ")}?` : "";
  return `File not found: ${path}.${hint}`;
}

const READ_FILE_PARAMETERS = Type.Object(
  {
    file_path: Type.String({
      description: "Path of the file (absolute or relative to the working directory).",
    }),
    offset: Type.Optional(
      Type.Integer({ minimum: 1, description: "1-based line to start from (default 1)." }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, description: `Number of lines to read (default ${DEFAULT_READ_LIMIT}).` }),
    ),
  },
  { additionalProperties: false },
);

/** read_file's arguments. */
export type ReadFileArgs = Static<typeof READ_FILE_PARAMETERS>;

/** The read_file tool (read-only). */
export function readFileTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "read_file",
    description: DESCRIPTION,
    parameters: READ_FILE_PARAMETERS,
    execute: (args, { environment }) => readFileExecutor(args, environment),
    readOnly: true,
  });
}
