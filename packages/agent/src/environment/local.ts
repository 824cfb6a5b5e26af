import { lstatSync, type Stats, statSync } from "node:fs";
import { stat as fsStat, lstat } from "node:fs/promises";
import { platform as osPlatform, release } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
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
import { buildCommandEnv, type EnvPolicy } from "./env-policy.js";
import {
  FileNotFoundError,
  fromNodeError,
  IsADirectoryError,
  NotADirectoryError,
  ProcessDataError,
} from "./errors.js";
import { FileBoundary } from "./file-boundary.js";
import { readBytes, readSmallFile, readWhole, removeFile, writeAtomic } from "./file-io.js";
import { globFiles } from "./glob.js";
import { type GrepEngineChoice, grepFiles } from "./grep.js";
import { walk } from "./ignore-walk.js";
import { readLines, windowLines } from "./line-reader.js";
import { spawnLongLived } from "./long-lived-process.js";
import { coversProcessData, refuseProcessData } from "./process-data.js";
import { DEFAULT_CAPTURE_LIMIT, runCommand } from "./run-command.js";

/** Spec defaults for command timeouts. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
export const MAX_COMMAND_TIMEOUT_MS = 600_000;

export interface LocalExecutionEnvironmentOptions {
  /** Directory relative paths resolve against; the process's cwd when absent. */
  readonly workingDirectory?: string;
  /** Which host variables commands inherit; secrets are dropped by default. */
  readonly envPolicy?: EnvPolicy;
  /** Timeout for commands that give none (10 000 ms). */
  readonly defaultTimeoutMs?: number;
  /** Upper bound for any command's timeout (600 000 ms). */
  readonly maxTimeoutMs?: number;
  /**
   * grep and glob: "auto" (default) uses ripgrep (the binary shipped with the package, else `rg`
   * on PATH) when it can run, else the JavaScript engine; or one engine forced.
   */
  readonly grepEngine?: GrepEngineChoice;
  /** Bytes of each output stream kept at its head and at its tail (1 MiB). */
  readonly outputCaptureBytes?: number;
  /** The variables the env-var policy filters (process.env by default). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Project directories besides the working directory. A path written inside the project that
   * leads outside it through a symlink (also one swapped in meanwhile) is not written, searched,
   * globbed or listed: SymlinkOutsideProjectError.
   */
  readonly projectDirs?: readonly string[];
}

/** A command ready to spawn: where it runs and the variables it gets. */
export interface PreparedCommand {
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** How to spawn a prepared command: the program and its arguments, and the variables if changed. */
export interface LaunchPlan {
  readonly argv: readonly [string, ...string[]];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The default ExecutionEnvironment: the local file system and `/bin/bash -c` commands, each in
 * its own process group so a timeout, an abort or cleanup() kills everything it started.
 */
export class LocalExecutionEnvironment implements ExecutionEnvironment {
  private readonly cwd: string;
  private readonly options: LocalExecutionEnvironmentOptions;
  private readonly running = new Set<() => void>();
  private readonly boundary: FileBoundary;

  constructor(options: LocalExecutionEnvironmentOptions = {}) {
    this.options = options;
    this.cwd = resolve(options.workingDirectory ?? process.cwd());
    this.boundary = new FileBoundary([this.cwd, ...(options.projectDirs ?? [])]);
  }

  /** Checks that the working directory exists and is a directory. */
  async initialize(): Promise<void> {
    const s = await fsStat(this.cwd).catch((err) => {
      throw fromNodeError(err, this.cwd);
    });
    if (!s.isDirectory()) throw new NotADirectoryError(this.cwd);
  }

  /** Kills every command group still running. */
  async cleanup(): Promise<void> {
    for (const kill of [...this.running]) kill();
  }

  workingDirectory(): string {
    return this.cwd;
  }

  platform(): string {
    const p = osPlatform();
    return p === "win32" ? "windows" : p;
  }

  osVersion(): string {
    return `${osPlatform()} ${release()}`;
  }

  resolvePath(path: string): string {
    return resolve(this.cwd, path);
  }

  /** Paths inside the working directory are shown relative to it, others absolute. */
  private display(absolute: string): string {
    const rel = relative(this.cwd, absolute);
    if (rel === "") return ".";
    if (rel.startsWith("..") || isAbsolute(rel)) return absolute;
    return sep === "/" ? rel : rel.split(sep).join("/");
  }

  private async requireFile(abs: string, shown: string): Promise<void> {
    const s = await fsStat(abs).catch((err) => {
      throw fromNodeError(err, shown);
    });
    if (s.isDirectory()) throw new IsADirectoryError(shown);
  }

  async readFile(path: string, options?: ReadFileOptions): Promise<string> {
    const abs = this.resolvePath(path);
    refuseProcessData(abs, path);
    const whole =
      options?.offset === undefined && options?.limit === undefined && options?.maxLineLength === undefined;
    let small: Buffer | undefined;
    try {
      small = readSmallFile(abs);
    } catch (err) {
      throw fromNodeError(err, path);
    }
    if (small !== undefined && whole) return small.toString("utf8");
    if (small === undefined) await this.requireFile(abs, path);
    try {
      if (whole) return await readWhole(abs);
      const lines = {
        offset: Math.max(1, Math.floor(options?.offset ?? 1)),
        ...(options?.limit !== undefined && { limit: Math.max(0, Math.floor(options.limit)) }),
        ...(options?.maxLineLength !== undefined && { maxLineLength: Math.max(1, options.maxLineLength) }),
      };
      return small !== undefined ? windowLines(small.toString("utf8"), lines) : await readLines(abs, lines);
    } catch (err) {
      throw fromNodeError(err, path);
    }
  }

  async readFileBytes(path: string, options?: { readonly maxBytes?: number }): Promise<Uint8Array> {
    const abs = this.resolvePath(path);
    refuseProcessData(abs, path);
    let small: Buffer | undefined;
    try {
      small = readSmallFile(abs);
    } catch (err) {
      throw fromNodeError(err, path);
    }
    if (small !== undefined) {
      const bytes = options?.maxBytes !== undefined ? small.subarray(0, options.maxBytes) : small;
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    }
    await this.requireFile(abs, path);
    try {
      return await readBytes(abs, options?.maxBytes);
    } catch (err) {
      throw fromNodeError(err, path);
    }
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const abs = this.resolvePath(path);
    const existing = await fsStat(abs).catch(() => undefined);
    if (existing?.isDirectory()) throw new IsADirectoryError(path);
    try {
      // Checked on the folder the write really opens, after any swap of a symlink into its path.
      await writeAtomic(abs, content, (real) => this.boundary.check(abs, real, path));
    } catch (err) {
      throw fromNodeError(err, path);
    }
  }

  async deleteFile(path: string): Promise<void> {
    const abs = this.resolvePath(path);
    const s = await lstat(abs).catch((err) => {
      throw fromNodeError(err, path);
    });
    if (s.isDirectory()) throw new IsADirectoryError(path);
    await removeFile(abs, (real) => this.boundary.check(abs, real, path)).catch((err) => {
      throw fromNodeError(err, path);
    });
  }

  async fileExists(path: string): Promise<boolean> {
    try {
      return (await this.stat(path)) !== undefined;
    } catch (err) {
      if (err instanceof ProcessDataError) return false;
      throw err;
    }
  }

  async stat(path: string): Promise<FileStat | undefined> {
    const abs = this.resolvePath(path);
    refuseProcessData(abs, path);
    // Synchronous: one system call on cached metadata, where the thread pool costs a wake-up.
    let l: Stats | undefined;
    try {
      l = lstatSync(abs, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (!l) return undefined;
    // Report what a symlink points at, but still say it is one.
    let s = l;
    if (l.isSymbolicLink()) {
      try {
        s = statSync(abs, { throwIfNoEntry: false }) ?? l;
      } catch {
        s = l;
      }
    }
    return {
      isFile: s.isFile(),
      isDirectory: s.isDirectory(),
      isSymbolicLink: l.isSymbolicLink(),
      size: s.size,
      mtimeMs: s.mtimeMs,
      mode: s.mode,
    };
  }

  async listDirectory(path: string, depth = 1): Promise<readonly DirEntry[]> {
    const abs = this.resolvePath(path);
    refuseProcessData(abs, path);
    this.boundary.checkExisting(abs, path);
    const s = await fsStat(abs).catch((err) => {
      throw fromNodeError(err, path);
    });
    if (!s.isDirectory()) throw new NotADirectoryError(path);
    const out: DirEntry[] = [];
    for await (const e of walk(abs, { maxDepth: Math.max(1, depth) })) {
      if (e.isDir) {
        out.push({ path: e.relative, name: e.name, isDir: true });
        continue;
      }
      const size = await fsStat(e.absolute).then(
        (st) => st.size,
        () => undefined,
      );
      out.push({ path: e.relative, name: e.name, isDir: false, ...(size !== undefined && { size }) });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return this.runCommandWith(command, options);
  }

  /**
   * Runs a command under this environment's timeout, directory and variable rules; `launch`, when
   * given, turns the prepared command into the program to spawn (a sandbox wraps bash this way).
   */
  protected async runCommandWith(
    command: string,
    options: ExecOptions,
    launch?: (prepared: PreparedCommand) => Promise<LaunchPlan>,
  ): Promise<ExecResult> {
    const max = this.options.maxTimeoutMs ?? MAX_COMMAND_TIMEOUT_MS;
    const requested = options.timeoutMs ?? this.options.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const timeoutMs = Math.max(1, Math.min(requested, max));
    const cwd = options.workingDir === undefined ? this.cwd : this.resolvePath(options.workingDir);
    // Checked here: spawn would report a missing directory as a missing /bin/bash.
    const dir = await fsStat(cwd).catch((err) => {
      throw fromNodeError(err, options.workingDir ?? cwd);
    });
    if (!dir.isDirectory()) throw new NotADirectoryError(options.workingDir ?? cwd);
    const env = buildCommandEnv(this.options.baseEnv ?? process.env, this.options.envPolicy, options.env);
    const plan = launch ? await launch({ command, cwd, env }) : undefined;
    return runCommand(command, {
      cwd,
      env: plan?.env ?? env,
      timeoutMs,
      captureLimit: this.options.outputCaptureBytes ?? DEFAULT_CAPTURE_LIMIT,
      ...(plan !== undefined && { argv: plan.argv }),
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(options.onOutput !== undefined && { onOutput: options.onOutput }),
      register: (kill) => {
        this.running.add(kill);
        return () => this.running.delete(kill);
      },
    });
  }

  /** Starts a program with piped stdio in its own process group; cleanup() kills it. */
  async startProcess(
    command: string,
    args: readonly string[],
    options: StartProcessOptions = {},
  ): Promise<LongLivedProcess> {
    const cwd = options.workingDir === undefined ? this.cwd : this.resolvePath(options.workingDir);
    const dir = await fsStat(cwd).catch((err) => {
      throw fromNodeError(err, options.workingDir ?? cwd);
    });
    if (!dir.isDirectory()) throw new NotADirectoryError(options.workingDir ?? cwd);
    return spawnLongLived(command, args, {
      cwd,
      env: buildCommandEnv(this.options.baseEnv ?? process.env, this.options.envPolicy, options.env),
      register: (kill) => {
        this.running.add(kill);
        return () => this.running.delete(kill);
      },
    });
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepResult> {
    const abs = this.resolvePath(path);
    refuseProcessData(abs, path);
    // A search from / or /proc would read every process's data on the way.
    if (coversProcessData(abs)) throw new ProcessDataError(path);
    this.boundary.checkExisting(abs, path);
    const s = await fsStat(abs).catch(() => undefined);
    if (!s) throw new FileNotFoundError(path);
    return grepFiles(pattern, abs, {
      ...options,
      engine: this.options.grepEngine ?? "auto",
      display: (p) => this.display(p),
      isFile: s.isFile(),
    });
  }

  async glob(pattern: string, path = ".", options: GlobOptions = {}): Promise<GlobResult> {
    const abs = this.resolvePath(path);
    refuseProcessData(abs, path);
    this.boundary.checkExisting(abs, path);
    const s = await fsStat(abs).catch(() => undefined);
    if (!s) throw new FileNotFoundError(path);
    if (!s.isDirectory()) throw new NotADirectoryError(path);
    return globFiles(pattern, abs, {
      ...options,
      display: (p) => this.display(p),
      engine: this.options.grepEngine ?? "auto",
    });
  }
}
