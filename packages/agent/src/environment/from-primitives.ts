import { posix } from "node:path";
import { Readable } from "node:stream";
import type {
  DirEntry,
  ExecOptions,
  ExecResult,
  ExecutionEnvironment,
  FileStat,
  GlobOptions,
  GlobResult,
  GrepOptions,
  GrepResult,
  LongLivedProcess,
  ReadFileOptions,
  StartProcessOptions,
} from "../types/environment.js";
import { EnvironmentError, FileNotFoundError, IsADirectoryError, NotADirectoryError } from "./errors.js";
import { DEFAULT_GLOB_MAX_RESULTS, globMatcher, newestFirst } from "./glob.js";
import { DEFAULT_GREP_MAX_RESULTS } from "./grep.js";
import { GrepCollector } from "./grep-collector.js";
import { grepThroughReads } from "./grep-javascript.js";
import { type WalkFileSystem, walk } from "./ignore-walk.js";
import { readLinesFrom } from "./line-reader.js";

/** One entry of a directory listing, as the readdir primitive gives it. */
export interface PrimitiveDirent {
  readonly name: string;
  readonly isDirectory: boolean;
  /** When the listing knows them; otherwise stat() is asked where they are needed. */
  readonly size?: number;
  readonly mtimeMs?: number;
}

/** What the exec primitive is asked to run. */
export interface PrimitiveExecOptions {
  /** Absolute directory to run in. */
  readonly workingDir: string;
  /** Extra variables for the command. */
  readonly env?: Readonly<Record<string, string>>;
  /** Aborted on timeout, on the caller's abort, and by cleanup(): stop the command then. */
  readonly signal: AbortSignal;
  /** Call with output as it arrives, when the primitive can stream; optional. */
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
}

/** What the exec primitive reports; the rest of an ExecResult is derived. */
export interface PrimitiveExecResult {
  readonly stdout: string;
  readonly stderr?: string;
  /** null when the command was killed. */
  readonly exitCode: number | null;
}

/**
 * The five operations a custom ExecutionEnvironment is built from (see environmentFromPrimitives).
 * Paths given to them are absolute ("/"-separated). Expected failures should be EnvironmentErrors
 * (FileNotFoundError, PermissionDeniedError…) so tools report them to the model as they are.
 */
export interface EnvironmentPrimitives {
  /** Absolute directory relative paths resolve against. */
  readonly workingDirectory: string;
  /** A file's whole content; rejects (FileNotFoundError) when there is none. */
  read(path: string): Promise<Uint8Array>;
  /** Replaces a file's whole content, creating parent directories; should be atomic. */
  write(path: string, content: Uint8Array): Promise<void>;
  /** Metadata, or undefined when nothing is at the path. */
  stat(path: string): Promise<FileStat | undefined>;
  /** A directory's entries (any order); rejects when it cannot be read. */
  readdir(path: string): Promise<readonly PrimitiveDirent[]>;
  /** Runs a shell command line; resolves with its output and exit code, never for a non-zero exit. */
  exec(command: string, options: PrimitiveExecOptions): Promise<PrimitiveExecResult>;

  /** Optional: deletes a file (deleteFile rejects with code EUNSUPPORTED without it). */
  remove?(path: string): Promise<void>;
  /** Optional: starts a long-lived program (language servers); without it those features are off. */
  startProcess?(
    command: string,
    args: readonly string[],
    options?: StartProcessOptions,
  ): Promise<LongLivedProcess>;
  /** Optional set-up and tear-down, run by initialize() and cleanup(). */
  initialize?(): Promise<void>;
  cleanup?(): Promise<void>;
  /** For the system prompt's environment block; "linux" and "unknown" by default. */
  readonly platform?: string;
  readonly osVersion?: string;
}

/** Timeout of a command that gives none, and the ceiling for any, as for the local environment. */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 600_000;
const decoder = new TextDecoder();
const encoder = new TextEncoder();
const byPath = (a: { path: string }, b: { path: string }): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/**
 * An ExecutionEnvironment built from five primitives (read, write, stat, readdir, exec): windowed
 * reads, byte reads, existence checks, listings, grep and glob (ignore files honoured, hidden
 * entries skipped, as the local environment does) and command timeouts are derived from them.
 * For environments where files live elsewhere: a container, a virtual file system, a test double.
 */
export function environmentFromPrimitives(primitives: EnvironmentPrimitives): ExecutionEnvironment {
  return new PrimitiveEnvironment(primitives);
}

class PrimitiveEnvironment implements ExecutionEnvironment {
  private readonly cwd: string;
  /** Commands running now, stopped by cleanup(). */
  private readonly running = new Set<AbortController>();
  readonly startProcess?: ExecutionEnvironment["startProcess"];

  constructor(private readonly p: EnvironmentPrimitives) {
    if (!posix.isAbsolute(p.workingDirectory))
      throw new EnvironmentError(
        "EINVAL",
        `workingDirectory must be absolute: ${JSON.stringify(p.workingDirectory)}`,
      );
    this.cwd = posix.normalize(p.workingDirectory);
    const start = p.startProcess;
    if (start) this.startProcess = (command, args, options) => start.call(p, command, args, options);
  }

  async initialize(): Promise<void> {
    await this.p.initialize?.();
  }

  async cleanup(): Promise<void> {
    for (const controller of this.running) controller.abort();
    await this.p.cleanup?.();
  }

  workingDirectory(): string {
    return this.cwd;
  }

  platform(): string {
    return this.p.platform ?? "linux";
  }

  osVersion(): string {
    return this.p.osVersion ?? "unknown";
  }

  resolvePath(path: string): string {
    return posix.resolve(this.cwd, path);
  }

  /** What a path is shown as in results: relative inside the working directory, else absolute. */
  private display(absolute: string): string {
    const rel = posix.relative(this.cwd, absolute);
    if (rel === "") return ".";
    return rel.startsWith("..") ? absolute : rel;
  }

  /** The file at path, which must exist and not be a directory. */
  private async fileAt(path: string): Promise<string> {
    const abs = this.resolvePath(path);
    const s = await this.p.stat(abs);
    if (!s) throw new FileNotFoundError(path);
    if (s.isDirectory) throw new IsADirectoryError(path);
    return abs;
  }

  async readFile(path: string, options?: ReadFileOptions): Promise<string> {
    const bytes = await this.p.read(await this.fileAt(path));
    if (options?.offset === undefined && options?.limit === undefined && options?.maxLineLength === undefined)
      return decoder.decode(bytes);
    // The same line window as every other environment: CRs before LFs dropped, long lines cut.
    return readLinesFrom(Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]), {
      offset: Math.max(1, Math.floor(options.offset ?? 1)),
      ...(options.limit !== undefined && { limit: Math.max(0, Math.floor(options.limit)) }),
      ...(options.maxLineLength !== undefined && { maxLineLength: Math.max(1, options.maxLineLength) }),
    });
  }

  async readFileBytes(path: string, options?: { readonly maxBytes?: number }): Promise<Uint8Array> {
    const bytes = await this.p.read(await this.fileAt(path));
    return options?.maxBytes === undefined ? bytes : bytes.subarray(0, Math.max(0, options.maxBytes));
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const abs = this.resolvePath(path);
    if ((await this.p.stat(abs))?.isDirectory) throw new IsADirectoryError(path);
    await this.p.write(abs, typeof content === "string" ? encoder.encode(content) : content);
  }

  async deleteFile(path: string): Promise<void> {
    if (!this.p.remove)
      throw new EnvironmentError("EUNSUPPORTED", `This environment cannot delete files: ${path}`);
    await this.p.remove(await this.fileAt(path));
  }

  async fileExists(path: string): Promise<boolean> {
    return (await this.p.stat(this.resolvePath(path))) !== undefined;
  }

  stat(path: string): Promise<FileStat | undefined> {
    return this.p.stat(this.resolvePath(path));
  }

  /** walk() over the primitives: listings from readdir, ignore files through read. */
  private walkFs(): WalkFileSystem {
    return {
      readdir: async (dir) =>
        (await this.p.readdir(dir)).map((d) => ({
          name: d.name,
          isDir: d.isDirectory,
          isFile: !d.isDirectory,
          ...(d.size !== undefined && { size: d.size }),
          ...(d.mtimeMs !== undefined && { mtimeMs: d.mtimeMs }),
        })),
      readText: async (path) => {
        try {
          return decoder.decode(await this.p.read(path));
        } catch {
          return undefined;
        }
      },
    };
  }

  private async directoryAt(path: string): Promise<string> {
    const abs = this.resolvePath(path);
    const s = await this.p.stat(abs);
    if (!s) throw new FileNotFoundError(path);
    if (!s.isDirectory) throw new NotADirectoryError(path);
    return abs;
  }

  async listDirectory(path: string, depth = 1): Promise<readonly DirEntry[]> {
    const abs = await this.directoryAt(path);
    const out: DirEntry[] = [];
    for await (const e of walk(abs, { maxDepth: Math.max(1, depth), fs: this.walkFs() })) {
      if (e.isDir) {
        out.push({ path: e.relative, name: e.name, isDir: true });
        continue;
      }
      const size = e.size ?? (await this.p.stat(e.absolute))?.size;
      out.push({ path: e.relative, name: e.name, isDir: false, ...(size !== undefined && { size }) });
    }
    return out.sort(byPath);
  }

  async execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = Math.max(1, Math.min(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS));
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) controller.abort();
    this.running.add(controller);
    const started = performance.now();
    try {
      const result = await this.p.exec(command, {
        workingDir: options.workingDir === undefined ? this.cwd : this.resolvePath(options.workingDir),
        signal: controller.signal,
        ...(options.env !== undefined && { env: options.env }),
        ...(options.onOutput !== undefined && { onOutput: options.onOutput }),
      });
      const stderr = result.stderr ?? "";
      return {
        stdout: result.stdout,
        stderr,
        output: result.stdout + stderr,
        exitCode: result.exitCode,
        timedOut,
        aborted: !timedOut && controller.signal.aborted,
        durationMs: Math.round(performance.now() - started),
        droppedBytes: 0,
      };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      this.running.delete(controller);
    }
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepResult> {
    const abs = this.resolvePath(path);
    const s = await this.p.stat(abs);
    if (!s) throw new FileNotFoundError(path);
    const mode = options.outputMode ?? "content";
    const contextLines = mode === "content" ? Math.max(0, Math.floor(options.contextLines ?? 0)) : 0;
    const collector = new GrepCollector({
      mode,
      maxResults: Math.max(1, Math.floor(options.maxResults ?? DEFAULT_GREP_MAX_RESULTS)),
      contextLines,
      display: (p) => this.display(p),
    });
    await grepThroughReads(
      pattern,
      abs,
      {
        caseInsensitive: options.caseInsensitive ?? false,
        contextLines,
        isFile: !s.isDirectory,
        ...(options.globFilter !== undefined && { globFilter: options.globFilter }),
        ...(options.signal !== undefined && { signal: options.signal }),
      },
      { fs: this.walkFs(), read: (file) => this.p.read(file) },
      collector,
    );
    return collector.result("javascript");
  }

  async glob(pattern: string, path = ".", options: GlobOptions = {}): Promise<GlobResult> {
    const abs = await this.directoryAt(path);
    const max = Math.max(1, Math.floor(options.maxResults ?? DEFAULT_GLOB_MAX_RESULTS));
    const { isMatch } = globMatcher(pattern);
    const found: { path: string; mtime: number }[] = [];
    for await (const e of walk(abs, {
      fs: this.walkFs(),
      ...(options.signal !== undefined && { signal: options.signal }),
    })) {
      if (e.isDir || !isMatch(e.relative)) continue;
      const mtime = e.mtimeMs ?? (await this.p.stat(e.absolute))?.mtimeMs ?? 0;
      found.push({ path: this.display(e.absolute), mtime });
    }
    return newestFirst(found, max);
  }
}
