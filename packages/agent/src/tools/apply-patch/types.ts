import { ToolError } from "../shared/tool-errors.js";
/** One hunk of an Update File: where it goes and what it replaces. */
export interface PatchChunk {
  /** `@@ text` lines before the hunk: each is found in turn, the hunk is searched after the last. */
  readonly anchors: readonly string[];
  /** Context and removed lines, in order: what the file must contain. */
  readonly oldLines: readonly string[];
  /** Context and added lines, in order: what replaces oldLines. */
  readonly newLines: readonly string[];
  /** For each of newLines: its index in oldLines when it is a context line, else -1. */
  readonly contextIndex: readonly number[];
  /** `*** End of File` closed the hunk: it is matched against the end of the file first. */
  readonly atEndOfFile: boolean;
}

export type PatchOperation =
  | { readonly kind: "add"; readonly path: string; readonly content: string }
  | { readonly kind: "delete"; readonly path: string }
  | {
      readonly kind: "update";
      readonly path: string;
      readonly moveTo?: string;
      readonly chunks: readonly PatchChunk[];
    };

export interface ParsedPatch {
  readonly operations: readonly PatchOperation[];
}

/** The patch text is not valid v4a; `line` is 1-based in the text as given, when known. */
export class PatchParseError extends ToolError {
  readonly line?: number;
  constructor(message: string, line?: number) {
    super("patch_parse", message);
    this.name = "PatchParseError";
    if (line !== undefined) this.line = line;
  }
}

/** The patch is valid but does not fit the files; nothing was written. */
export class PatchApplyError extends ToolError {
  readonly path: string;
  /** 1-based hunk number within the file's Update, when a hunk failed. */
  readonly hunk?: number;
  constructor(path: string, message: string, hunk?: number) {
    super("patch_apply", message);
    this.name = "PatchApplyError";
    this.path = path;
    if (hunk !== undefined) this.hunk = hunk;
  }
}
