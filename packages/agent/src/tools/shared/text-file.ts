import type { ExecutionEnvironment } from "../../types/environment.js";
import { ToolError } from "./tool-errors.js";

/** A file that cannot be edited as text (binary or not UTF-8). */
export class NotTextError extends ToolError {
  readonly path: string;
  constructor(path: string, reason: string) {
    super("not_text", `${path} ${reason}; only UTF-8 text files can be edited.`);
    this.name = "NotTextError";
    this.path = path;
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** True when the bytes look binary: a NUL in the first 8 KB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Decodes bytes as UTF-8, keeping a BOM; throws NotTextError for binary or invalid UTF-8. */
export function decodeUtf8(bytes: Uint8Array, path: string): string {
  if (looksBinary(bytes)) throw new NotTextError(path, "is a binary file");
  try {
    return decoder.decode(bytes);
  } catch {
    throw new NotTextError(path, "is not valid UTF-8");
  }
}

/** Reads a whole text file through the environment, BOM and line endings untouched. */
export async function readTextFile(env: ExecutionEnvironment, path: string): Promise<string> {
  return decodeUtf8(await env.readFileBytes(path), path);
}
