import { posix } from "node:path";
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
} from "../../types/environment.js";
import { NON_INTERACTIVE_ENV } from "../env-policy.js";
import { FileNotFoundError, InvalidPatternError, IsADirectoryError, NotADirectoryError } from "../errors.js";
import { DEFAULT_GLOB_MAX_RESULTS, globMatcher, newestFirst } from "../glob.js";
import { DEFAULT_GREP_MAX_RESULTS } from "../grep.js";
import { GrepCollector, HitsBuilder } from "../grep-collector.js";
import { grepThroughReads } from "../grep-javascript.js";
import { walk } from "../ignore-walk.js";
import { readLinesFrom } from "../line-reader.js";
import { DEFAULT_CAPTURE_LIMIT } from "../run-command.js";
import { SshConnection, type SshConnectionOptions } from "./connection.js";
import { ExecFiles } from "./exec-files.js";
import { runRemoteCommand, shellQuote } from "./remote-command.js";
import { helperOf } from "./remote-helper.js";
import { startRemoteProcess } from "./remote-process.js";
import {
  fromSftpError,
  isDirMode,
  isFileMode,
  isLinkMode,
  type RemoteFiles,
  SftpFiles,
} from "./sftp-files.js";

/** Spec defaults for command timeouts, as for the local environment. */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 600_000;
/** Output kept of search commands, whose stdout is parsed as it streams (stderr is what matters). */
const SEARCH_CAPTURE = 16 * 1024;

export interface SshExecutionEnvironmentOptions extends SshConnectionOptions {
  /**
   * The directory on the host that relative paths resolve against: absolute, or `~`/`~/…` under
   * the login directory (resolved by initialize(), which must then run first).
   */
  readonly workingDirectory: string;
  /** Timeout for commands that give none (10 000 ms). */
  readonly defaultTimeoutMs?: number;
  /** Upper bound for any command's timeout (600 000 ms). */
  readonly maxTimeoutMs?: number;
  /** Bytes of each output stream kept at its head and at its tail (1 MiB). */
  readonly outputCaptureBytes?: number;
  /** Variables exported to every command (the host's own environment is kept). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * "auto" (default) searches with the host's `rg` when it has one, else over SFTP with the
   * JavaScript engine; "javascript" always over SFTP.
   */
  readonly grepEngine?: "auto" | "javascript";
}

/**
 * An ExecutionEnvironment on a remote host over one SSH connection: files over SFTP (windowed
 * reads, atomic writes; over exec when the host has no SFTP subsystem), commands through one
 * helper shell kept open on the connection, each in a process group of its own that never
 * outlives the call, long-lived programs (background commands, language servers) on channels of
 * their own, stopped with their process group, grep and glob through the host's `rg` when it has one. The connection is
 * made on first use, kept alive, and made again after it drops; a call running when it drops
 * fails with RemoteConnectionError. Host keys must be in the known_hosts file given.
 */
export class SshExecutionEnvironment implements ExecutionEnvironment {
  private readonly connection: SshConnection;
  private cwd: string;
  private readonly running = new Set<() => void>();
  /** Programs started by startProcess that still run, by their stoppers. */
  private readonly processes = new Set<() => Promise<void>>();
  private remote: Promise<{ platform: string; osVersion: string; rg: boolean }> | undefined;

  constructor(private readonly options: SshExecutionEnvironmentOptions) {
    const dir = options.workingDirectory;
    if (!posix.isAbsolute(dir) && dir !== "~" && !dir.startsWith("~/"))
      throw new TypeError(`The remote working directory must be absolute or start with ~/: ${dir}`);
    this.cwd = posix.normalize(dir);
    this.connection = new SshConnection(options);
  }

  /** Connects, checks the working directory and learns the host's platform and tools. */
  async initialize(): Promise<void> {
    const files = await this.files();
    if (this.cwd.startsWith("~")) {
      const home = await files.realpath(".").catch((error) => {
        throw this.connection.wrap(error, "could not find the login directory");
      });
      this.cwd = posix.join(home, this.cwd.slice(1));
    }
    const s = await files.stat(this.cwd).catch((error) => {
      throw fromSftpError(error, this.cwd);
    });
    if (!isDirMode(s.mode)) throw new NotADirectoryError(this.cwd);
    await this.probe();
  }

  /**
   * Stops every command still running and every program startProcess started (their process
   * groups on the host, which the connection's end alone would leave running), then closes the
   * connection.
   */
  async cleanup(): Promise<void> {
    for (const stop of [...this.running]) stop();
    await Promise.all([...this.processes].map((stop) => stop()));
    await this.connection.close();
  }

  /**
   * Starts a long-lived program on the host (a background command, a language server) with its
   * streams piped over a channel of its own; kill() and cleanup() stop its whole process group
   * there. Rejects with CommandError when the program or the directory is missing.
   */
  async startProcess(
    command: string,
    args: readonly string[],
    options: StartProcessOptions = {},
  ): Promise<LongLivedProcess> {
    return startRemoteProcess(this.connection, command, args, {
      cwd: options.workingDir === undefined ? this.cwd : this.resolvePath(options.workingDir),
      env: { ...NON_INTERACTIVE_ENV, ...this.options.env, ...options.env },
      register: (stop) => {
        this.processes.add(stop);
        return () => this.processes.delete(stop);
      },
    });
  }

  workingDirectory(): string {
    return this.cwd;
  }

  /** The host's platform once initialize() has run ("linux" until then). */
  platform(): string {
    return this.known?.platform ?? "linux";
  }

  osVersion(): string {
    return this.known?.osVersion ?? `remote ${this.connection.label}`;
  }

  resolvePath(path: string): string {
    return posix.resolve(this.cwd, path);
  }

  private known: { platform: string; osVersion: string; rg: boolean } | undefined;

  private probe(): Promise<{ platform: string; osVersion: string; rg: boolean }> {
    this.remote ??= this.execCommand("uname -sr; command -v rg >/dev/null && echo rg", { timeoutMs: 15_000 })
      .then((r) => {
        const [uname = "", tool = ""] = r.stdout.trim().split("\n");
        const platform = (uname.split(" ")[0] ?? "linux").toLowerCase();
        this.known = { platform, osVersion: uname.trim() || "unknown", rg: tool.trim() === "rg" };
        return this.known;
      })
      .catch((error) => {
        this.remote = undefined;
        throw error;
      });
    return this.remote;
  }

  private async useRipgrep(): Promise<boolean> {
    return this.options.grepEngine !== "javascript" && (await this.probe()).rg;
  }

  /** Files over the SFTP session, or over exec when the host has no SFTP subsystem. */
  private async files(): Promise<RemoteFiles> {
    const sftp = await (await this.connection.live()).sftp();
    if (sftp) return new SftpFiles(sftp);
    // Each operation runs in the helper's own loop: a stat costs the stat, not a new bash.
    return new ExecFiles(async (script) => {
      const { status, stdout, stderr } = await (await helperOf(this.connection)).fileOp(script);
      const out = stdout.toString("utf8");
      const err = stderr.toString("utf8");
      return {
        stdout: out,
        stderr: err,
        output: out + err,
        exitCode: status,
        timedOut: false,
        aborted: false,
        durationMs: 0,
        droppedBytes: 0,
      };
    });
  }

  /** Runs an SFTP operation, turning its errors into the environment's. */
  private async sftp<T>(shown: string, run: (files: RemoteFiles) => Promise<T>): Promise<T> {
    const files = await this.files();
    try {
      return await run(files);
    } catch (error) {
      const mapped = fromSftpError(error, shown);
      if (mapped !== error) throw mapped;
      if (error instanceof Error && "code" in error && typeof error.code === "string") throw error;
      throw this.connection.wrap(error, `${shown}`);
    }
  }

  private display(absolute: string): string {
    const rel = posix.relative(this.cwd, absolute);
    if (rel === "") return ".";
    return rel.startsWith("..") || posix.isAbsolute(rel) ? absolute : rel;
  }

  async readFile(path: string, options?: ReadFileOptions): Promise<string> {
    const abs = this.resolvePath(path);
    return this.sftp(path, async (files) => {
      const s = await files.stat(abs);
      if (isDirMode(s.mode)) throw new IsADirectoryError(path);
      if (
        options?.offset === undefined &&
        options?.limit === undefined &&
        options?.maxLineLength === undefined
      )
        return (await files.readFile(abs)).toString("utf8");
      return readLinesFrom(files.readStream(abs), {
        offset: Math.max(1, Math.floor(options.offset ?? 1)),
        ...(options.limit !== undefined && { limit: Math.max(0, Math.floor(options.limit)) }),
        ...(options.maxLineLength !== undefined && { maxLineLength: Math.max(1, options.maxLineLength) }),
      });
    });
  }

  async readFileBytes(path: string, options?: { readonly maxBytes?: number }): Promise<Uint8Array> {
    const abs = this.resolvePath(path);
    return this.sftp(path, async (files) => {
      const s = await files.stat(abs);
      if (isDirMode(s.mode)) throw new IsADirectoryError(path);
      const bytes =
        options?.maxBytes === undefined
          ? await files.readFile(abs)
          : await files.readHead(abs, options.maxBytes);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    });
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const abs = this.resolvePath(path);
    await this.sftp(path, (files) => files.writeAtomic(abs, content, path));
  }

  async deleteFile(path: string): Promise<void> {
    const abs = this.resolvePath(path);
    await this.sftp(path, async (files) => {
      const s = await files.lstat(abs);
      if (isDirMode(s.mode)) throw new IsADirectoryError(path);
      await files.unlink(abs);
    });
  }

  async fileExists(path: string): Promise<boolean> {
    return (await this.stat(path)) !== undefined;
  }

  async stat(path: string): Promise<FileStat | undefined> {
    const abs = this.resolvePath(path);
    const files = await this.files();
    const l = await files.lstat(abs).catch(() => undefined);
    if (!l) return undefined;
    // Report what a symlink points at, but still say it is one (as locally).
    const s = isLinkMode(l.mode) ? await files.stat(abs).catch(() => l) : l;
    return {
      isFile: isFileMode(s.mode),
      isDirectory: isDirMode(s.mode),
      isSymbolicLink: isLinkMode(l.mode),
      size: s.size,
      mtimeMs: s.mtime * 1000,
      mode: s.mode,
    };
  }

  async listDirectory(path: string, depth = 1): Promise<readonly DirEntry[]> {
    const abs = this.resolvePath(path);
    return this.sftp(path, async (files) => {
      const s = await files.stat(abs);
      if (!isDirMode(s.mode)) throw new NotADirectoryError(path);
      const out: DirEntry[] = [];
      for await (const e of walk(abs, { maxDepth: Math.max(1, depth), fs: files.walkFs() })) {
        out.push(
          e.isDir
            ? { path: e.relative, name: e.name, isDir: true }
            : { path: e.relative, name: e.name, isDir: false, ...(e.size !== undefined && { size: e.size }) },
        );
      }
      return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    });
  }

  execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return this.run(command, options, this.options.outputCaptureBytes ?? DEFAULT_CAPTURE_LIMIT);
  }

  /** A command on the host, keeping `captureLimit` bytes at each end of its output. */
  private async run(command: string, options: ExecOptions, captureLimit: number): Promise<ExecResult> {
    const max = this.options.maxTimeoutMs ?? MAX_TIMEOUT_MS;
    const requested = options.timeoutMs ?? this.options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    return runRemoteCommand(this.connection, command, {
      cwd: options.workingDir === undefined ? this.cwd : this.resolvePath(options.workingDir),
      env: { ...NON_INTERACTIVE_ENV, ...this.options.env, ...options.env },
      timeoutMs: Math.max(1, Math.min(requested, max)),
      captureLimit,
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(options.onOutput !== undefined && { onOutput: options.onOutput }),
      register: (stop) => {
        this.running.add(stop);
        return () => this.running.delete(stop);
      },
    });
  }

  async grep(pattern: string, path: string, options: GrepOptions = {}): Promise<GrepResult> {
    const abs = this.resolvePath(path);
    const s = await this.stat(path);
    if (!s) throw new FileNotFoundError(path);
    const mode = options.outputMode ?? "content";
    const contextLines = mode === "content" ? Math.max(0, Math.floor(options.contextLines ?? 0)) : 0;
    const collector = new GrepCollector({
      mode,
      maxResults: Math.max(1, Math.floor(options.maxResults ?? DEFAULT_GREP_MAX_RESULTS)),
      contextLines,
      display: (p) => this.display(p),
    });
    if (await this.useRipgrep()) {
      await this.grepWithRipgrep(pattern, abs, s.isFile, { ...options, contextLines }, collector);
      return collector.result("ripgrep");
    }
    await this.sftp(path, (files) =>
      grepThroughReads(
        pattern,
        abs,
        {
          caseInsensitive: options.caseInsensitive ?? false,
          contextLines,
          isFile: s.isFile,
          ...(options.globFilter !== undefined && { globFilter: options.globFilter }),
          ...(options.signal !== undefined && { signal: options.signal }),
        },
        { fs: files.walkFs(), read: (file) => files.readFile(file) },
        collector,
      ),
    );
    return collector.result("javascript");
  }

  /** `rg --json` on the host, its lines parsed as they arrive. */
  private async grepWithRipgrep(
    pattern: string,
    abs: string,
    isFile: boolean,
    options: GrepOptions & { contextLines: number },
    collector: GrepCollector,
  ): Promise<void> {
    const args = ["rg", "--json", "--no-config", "--no-require-git"];
    args.push(options.caseInsensitive ? "--ignore-case" : "--case-sensitive");
    if (options.contextLines > 0) args.push("--context", String(options.contextLines));
    // As locally: at most one line more per file than can be shown, and no parsing once the
    // results are in (see GrepCollector.enough).
    if (collector.perFileCap > 0) args.push("--max-count", String(collector.perFileCap + 1));
    if (options.globFilter) args.push("--glob", options.globFilter);
    args.push("--regexp", pattern, "--", isFile ? posix.basename(abs) : ".");
    const dir = isFile ? posix.dirname(abs) : abs;
    let current: HitsBuilder | undefined;
    let pending = "";
    let enough = false;
    const onLine = (line: string) => {
      if (enough) return;
      let msg: { type: string; data: Record<string, { text?: string; bytes?: string } | number> };
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      const text = (t: unknown) => {
        const v = t as { text?: string; bytes?: string } | undefined;
        return v?.text ?? (v?.bytes !== undefined ? Buffer.from(v.bytes, "base64").toString("utf8") : "");
      };
      if (msg.type === "begin")
        current = new HitsBuilder(
          posix.resolve(dir, text(msg.data.path)),
          collector.perFileCap,
          options.contextLines,
        );
      else if ((msg.type === "match" || msg.type === "context") && current) {
        const n = msg.data.line_number as number;
        const body = text(msg.data.lines).replace(/\n$/, "");
        if (msg.type === "match") current.match(n, body);
        else current.context(n, body);
      } else if (msg.type === "end" && current) {
        collector.add(current.build());
        current = undefined;
        enough = collector.enough();
      }
    };
    const result = await this.run(
      args.map(shellQuote).join(" "),
      {
        workingDir: dir,
        timeoutMs: MAX_TIMEOUT_MS,
        ...(options.signal !== undefined && { signal: options.signal }),
        onOutput: (chunk, stream) => {
          if (stream !== "stdout") return;
          pending += chunk;
          let nl = pending.indexOf("\n");
          while (nl !== -1) {
            onLine(pending.slice(0, nl));
            pending = pending.slice(nl + 1);
            nl = pending.indexOf("\n");
          }
        },
      },
      SEARCH_CAPTURE,
    );
    if (pending !== "") onLine(pending);
    if (result.exitCode === 2 && /regex|parse error|syntax/i.test(result.stderr))
      throw new InvalidPatternError(pattern, result.stderr.trim().split("\n").slice(-3).join(" "));
  }

  async glob(pattern: string, path = ".", options: GlobOptions = {}): Promise<GlobResult> {
    const abs = this.resolvePath(path);
    const s = await this.stat(path);
    if (!s) throw new FileNotFoundError(path);
    if (!s.isDirectory) throw new NotADirectoryError(path);
    const max = Math.max(1, Math.floor(options.maxResults ?? DEFAULT_GLOB_MAX_RESULTS));
    const { isMatch } = globMatcher(pattern);
    const found: { path: string; mtime: number }[] = [];
    if (await this.useRipgrep()) {
      // The host lists (ignore files honoured as walk() does); the match is ours, so both engines
      // agree; only the matches are stat'ed.
      const matched: string[] = [];
      let pending = "";
      const take = (name: string) => {
        const rel = name.replace(/^\.\//, "");
        if (rel !== "" && isMatch(rel)) matched.push(posix.join(abs, rel));
      };
      await this.run(
        "rg --files --no-config --no-require-git -0 .",
        {
          workingDir: abs,
          timeoutMs: MAX_TIMEOUT_MS,
          ...(options.signal !== undefined && { signal: options.signal }),
          onOutput: (chunk, stream) => {
            if (stream !== "stdout") return;
            const parts = (pending + chunk).split("\0");
            pending = parts.pop() ?? "";
            for (const part of parts) take(part);
          },
        },
        SEARCH_CAPTURE,
      );
      take(pending);
      await this.sftp(path, async (files) => {
        for (let i = 0; i < matched.length; i += 64) {
          const slice = matched.slice(i, i + 64);
          const stats = await Promise.all(slice.map((f) => files.statOrUndefined(f)));
          slice.forEach((f, j) => {
            const st = stats[j];
            if (st) found.push({ path: this.display(f), mtime: st.mtime * 1000 });
          });
        }
      });
    } else {
      await this.sftp(path, async (files) => {
        for await (const e of walk(abs, {
          fs: files.walkFs(),
          ...(options.signal !== undefined && { signal: options.signal }),
        })) {
          if (!e.isDir && isMatch(e.relative))
            found.push({ path: this.display(e.absolute), mtime: e.mtimeMs ?? 0 });
        }
      });
    }
    return newestFirst(found, max);
  }
}
