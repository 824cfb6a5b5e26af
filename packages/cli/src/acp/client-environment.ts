import type { ExecutionEnvironment, ReadFileOptions } from "@attractor/agent";
import { cutLongLine } from "@attractor/agent/internals";

/** A file's text before and after one write or deletion the tools made. */
export interface FileChange {
  readonly path: string;
  /** Undefined when the file did not exist. */
  readonly oldText: string | undefined;
  /** Undefined when the file was deleted. */
  readonly newText: string | undefined;
}

/** The editor's file methods, when it offers them (absolute paths). */
export interface ClientFiles {
  readonly readTextFile?: (path: string) => Promise<string>;
  readonly writeTextFile?: (path: string, content: string) => Promise<void>;
}

/** What the wrapped environment adds: the changes made to each file, in order. */
export interface RecordingEnvironment extends ExecutionEnvironment {
  /** A position in the record: changes made from now on come after it. */
  mark(): number;
  /**
   * The change `path` went through after `since` (a mark), the changes in between folded into
   * one; the record of that path is cleared. Undefined when it did not change.
   */
  takeChange(path: string, since: number): FileChange | undefined;
}

/** Text files read through the editor are at most this large; bigger ones are read from the disk. */
const BINARY_SNIFF_BYTES = 8192;

/**
 * Wraps the tools' environment for an editor: text reads and writes go through the editor's
 * `fs/*` methods when it offers them (its unsaved buffers are the truth), everything else
 * (commands, search, listing, stat, deletion, binary files) stays with `inner`, and every write
 * or deletion records the file's text before and after, for the diffs shown in the editor.
 * Paths are resolved (and confined) by `inner` before the editor sees them.
 */
export function clientEnvironment(inner: ExecutionEnvironment, client: ClientFiles): RecordingEnvironment {
  const changes = new Map<string, (FileChange & { readonly seq: number })[]>();
  let seq = 0;
  const record = (change: FileChange) => {
    const list = changes.get(change.path) ?? [];
    list.push({ ...change, seq: ++seq });
    changes.set(change.path, list);
  };
  const looksBinary = (bytes: Uint8Array) => bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);

  /** The file's text as the editor has it; undefined when it must come from the disk. */
  const clientText = async (absolute: string): Promise<string | undefined> => {
    if (client.readTextFile === undefined) return undefined;
    // Only existing text files: a missing or binary file keeps the disk's own error or bytes.
    const info = await inner.stat(absolute);
    if (!info?.isFile) return undefined;
    const head = await inner.readFileBytes(absolute, { maxBytes: BINARY_SNIFF_BYTES });
    if (looksBinary(head)) return undefined;
    return client.readTextFile(absolute);
  };

  const currentText = async (absolute: string): Promise<string | undefined> => {
    const fromClient = await clientText(absolute);
    if (fromClient !== undefined) return fromClient;
    if (!(await inner.fileExists(absolute))) return undefined;
    const bytes = await inner.readFileBytes(absolute);
    return looksBinary(bytes) ? undefined : new TextDecoder().decode(bytes);
  };

  const environment: RecordingEnvironment = {
    initialize: () => inner.initialize(),
    cleanup: () => inner.cleanup(),
    workingDirectory: () => inner.workingDirectory(),
    platform: () => inner.platform(),
    osVersion: () => inner.osVersion(),
    resolvePath: (path) => inner.resolvePath(path),
    async readFile(path: string, options?: ReadFileOptions): Promise<string> {
      const absolute = inner.resolvePath(path);
      const text = await clientText(absolute);
      if (text === undefined) return inner.readFile(path, options);
      if (options === undefined) return text;
      return lineWindow(text, options);
    },
    async readFileBytes(path, options) {
      const absolute = inner.resolvePath(path);
      const text = await clientText(absolute);
      if (text === undefined) return inner.readFileBytes(path, options);
      const bytes = new TextEncoder().encode(text);
      return options?.maxBytes !== undefined ? bytes.subarray(0, options.maxBytes) : bytes;
    },
    async writeFile(path, content) {
      const absolute = inner.resolvePath(path);
      const oldText = await currentText(absolute).catch(() => undefined);
      const text = typeof content === "string" ? content : decodeStrict(content);
      if (client.writeTextFile !== undefined && text !== undefined) {
        await client.writeTextFile(absolute, text);
      } else {
        await inner.writeFile(path, content);
      }
      record({ path: absolute, oldText, newText: text });
    },
    async deleteFile(path) {
      const absolute = inner.resolvePath(path);
      const oldText = await currentText(absolute).catch(() => undefined);
      await inner.deleteFile(path);
      record({ path: absolute, oldText, newText: undefined });
    },
    fileExists: (path) => inner.fileExists(path),
    stat: (path) => inner.stat(path),
    listDirectory: (path, depth) => inner.listDirectory(path, depth),
    execCommand: (command, options) => inner.execCommand(command, options),
    grep: (pattern, path, options) => inner.grep(pattern, path, options),
    glob: (pattern, path, options) => inner.glob(pattern, path, options),
    mark: () => seq,
    takeChange(path, since) {
      const absolute = inner.resolvePath(path);
      const list = (changes.get(absolute) ?? []).filter((c) => c.seq > since);
      changes.delete(absolute);
      const first = list[0];
      const last = list.at(-1);
      if (first === undefined || last === undefined) return undefined;
      return { path: absolute, oldText: first.oldText, newText: last.newText };
    },
  };
  if (inner.startProcess !== undefined) {
    const start = inner.startProcess.bind(inner);
    return { ...environment, startProcess: (command, args, options) => start(command, args, options) };
  }
  return environment;
}

/** Text from bytes when they are valid UTF-8; undefined otherwise (written as bytes, to the disk). */
function decodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A window of lines as ExecutionEnvironment.readFile gives it: CR before LF dropped, joined with "\n". */
function lineWindow(text: string, options: ReadFileOptions): string {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (lines.at(-1) === "") lines.pop();
  const first = Math.max(1, options.offset ?? 1);
  const window = lines.slice(first - 1, options.limit !== undefined ? first - 1 + options.limit : undefined);
  const max = options.maxLineLength;
  return (max !== undefined ? window.map((line) => cutLongLine(line, max)) : window).join("\n");
}
