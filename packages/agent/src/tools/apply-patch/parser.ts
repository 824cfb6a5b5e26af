import { toLf } from "../edit/normalize.js";
import { type ParsedPatch, type PatchChunk, type PatchOperation, PatchParseError } from "./types.js";

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File:";
const DELETE = "*** Delete File:";
const UPDATE = "*** Update File:";
const MOVE = "*** Move to:";
const EOF_MARKER = "*** End of File";
// `<<EOF`, `<<'EOF'`, `<<"EOF"`, optionally after `apply_patch` or `applypatch`.
const HEREDOC_OPEN = /^(?:apply_?patch\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1$/;
// A unified-diff range header some models write instead of a bare `@@`.
const RANGE_HEADER = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/;

/**
 * Parses v4a patch text as leniently as codex does: markers may carry surrounding whitespace, a
 * shell heredoc wrapper is removed, the first hunk of an Update may omit `@@`, several `@@`
 * anchor lines may precede a hunk. Throws PatchParseError with the offending line.
 */
export function parsePatch(text: string): ParsedPatch {
  let lines = toLf(text).split("\n");
  let offset = 0; // lines removed from the front, for 1-based line numbers in errors
  while (lines.length > 0 && (lines[lines.length - 1] as string).trim() === "") lines.pop();
  while (lines.length > 0 && (lines[0] as string).trim() === "") {
    lines.shift();
    offset++;
  }
  const heredoc = HEREDOC_OPEN.exec((lines[0] ?? "").trim());
  if (heredoc !== null && lines.length >= 2 && (lines.at(-1) as string).trim() === heredoc[2]) {
    lines = lines.slice(1, -1);
    offset++;
  }
  if ((lines[0] ?? "").trim() !== BEGIN) {
    throw new PatchParseError(`The first line of the patch must be '${BEGIN}'.`, offset + 1);
  }
  if (lines.length < 2 || (lines.at(-1) as string).trim() !== END) {
    throw new PatchParseError(
      `The last line of the patch must be '${END}' (the patch may have been cut off).`,
      offset + lines.length,
    );
  }
  const body = lines.slice(1, -1);
  const parser = new BodyParser(body, offset + 2);
  const operations = parser.parse();
  if (operations.length === 0) {
    throw new PatchParseError(
      "The patch is empty: it has no file operations ('*** Add File:', '*** Update File:' or '*** Delete File:').",
      offset + 2,
    );
  }
  return { operations };
}

/** Walks the lines between the Begin and End markers; holds the cursor. */
class BodyParser {
  private at = 0;
  constructor(
    private readonly lines: readonly string[],
    private readonly firstLineNumber: number,
  ) {}

  parse(): PatchOperation[] {
    const operations: PatchOperation[] = [];
    while (this.at < this.lines.length) {
      const line = this.peek().trim();
      if (line === "") {
        this.at++;
        continue;
      }
      if (line.startsWith(ADD)) operations.push(this.parseAdd(this.pathOf(line, ADD)));
      else if (line.startsWith(DELETE)) {
        this.at++;
        operations.push({ kind: "delete", path: this.pathOf(line, DELETE) });
      } else if (line.startsWith(UPDATE)) operations.push(this.parseUpdate(this.pathOf(line, UPDATE)));
      else {
        throw this.error(
          `'${line}' is not a valid file header. Valid headers: '${ADD} <path>', '${DELETE} <path>', '${UPDATE} <path>'.`,
        );
      }
    }
    return operations;
  }

  private peek(): string {
    return this.lines[this.at] as string;
  }

  private error(message: string): PatchParseError {
    return new PatchParseError(
      `Line ${this.firstLineNumber + this.at}: ${message}`,
      this.firstLineNumber + this.at,
    );
  }

  private pathOf(line: string, prefix: string): string {
    const path = line.slice(prefix.length).trim();
    if (path === "") throw this.error(`'${prefix}' needs a path.`);
    return path;
  }

  private parseAdd(path: string): PatchOperation {
    this.at++;
    let content = "";
    while (this.at < this.lines.length && this.peek().startsWith("+")) {
      content += `${this.peek().slice(1)}\n`;
      this.at++;
    }
    return { kind: "add", path, content };
  }

  private parseUpdate(path: string): PatchOperation {
    this.at++;
    let moveTo: string | undefined;
    if (this.at < this.lines.length && this.peek().trim().startsWith(MOVE)) {
      moveTo = this.pathOf(this.peek().trim(), MOVE);
      this.at++;
    }
    const chunks: PatchChunk[] = [];
    while (this.at < this.lines.length) {
      const line = this.peek();
      if (line.trim() === "") {
        this.at++;
        continue;
      }
      if (line.startsWith("***")) break;
      chunks.push(this.parseChunk(path, chunks.length === 0));
    }
    // OpenAI's grammar allows a rename with no hunk; an Update that neither moves nor changes is an error.
    if (chunks.length === 0 && moveTo === undefined) throw this.error(`Update of '${path}' has no hunks.`);
    return moveTo === undefined ? { kind: "update", path, chunks } : { kind: "update", path, moveTo, chunks };
  }

  private parseChunk(path: string, first: boolean): PatchChunk {
    const anchors: string[] = [];
    let sawMarker = false;
    while (this.at < this.lines.length && this.peek().startsWith("@@")) {
      sawMarker = true;
      const line = this.peek();
      const range = RANGE_HEADER.exec(line.trimEnd());
      const anchor = range !== null ? (range[1] ?? "") : line.slice(2).trim();
      if (anchor !== "") anchors.push(anchor);
      this.at++;
    }
    if (!sawMarker && !first) {
      throw this.error(`Hunk in '${path}' must start with '@@', got '${this.peek()}'.`);
    }
    const oldLines: string[] = [];
    const newLines: string[] = [];
    const contextIndex: number[] = [];
    let atEndOfFile = false;
    let count = 0;
    while (this.at < this.lines.length) {
      const line = this.peek();
      if (line.trim() === EOF_MARKER) {
        atEndOfFile = true;
        this.at++;
        break;
      }
      if (line.startsWith("@@") || line.startsWith("***")) break;
      const tag = line[0];
      const rest = line.slice(1);
      if (line === "") {
        // An empty line inside a hunk is an empty context line whose leading space was lost.
        contextIndex.push(oldLines.length);
        oldLines.push("");
        newLines.push("");
      } else if (tag === " ") {
        contextIndex.push(oldLines.length);
        oldLines.push(rest);
        newLines.push(rest);
      } else if (tag === "-") oldLines.push(rest);
      else if (tag === "+") {
        contextIndex.push(-1);
        newLines.push(rest);
      } else {
        throw this.error(
          `Unexpected line in a hunk of '${path}': '${line}'. Every hunk line starts with ' ' (context), '+' (added) or '-' (removed).`,
        );
      }
      count++;
      this.at++;
    }
    if (count === 0) throw this.error(`A hunk of '${path}' has no lines.`);
    return { anchors, oldLines, newLines, contextIndex, atEndOfFile };
  }
}

/** Every path a patch would create, change, delete or move to, in patch order, without duplicates. */
export function patchPaths(patch: ParsedPatch): string[] {
  const paths = new Set<string>();
  for (const op of patch.operations) {
    paths.add(op.path);
    if (op.kind === "update" && op.moveTo !== undefined) paths.add(op.moveTo);
  }
  return [...paths];
}
