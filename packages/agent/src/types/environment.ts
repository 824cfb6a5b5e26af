/**
 * Everything a tool may do to the outside world goes through an ExecutionEnvironment, so a host
 * can run the agent against a container, a remote machine or a sandbox by implementing this
 * interface. Paths may be absolute or relative to workingDirectory(). Methods reject with
 * EnvironmentError (see environment/errors.ts) for expected failures: missing file, permission,
 * a path outside a confined root, a write in read-only mode.
 */
export interface ExecutionEnvironment {
  /** Prepares the environment (create a temp dir, start a container…). Idempotent. */
  initialize(): Promise<void>;
  /** Releases resources and kills every command still running. */
  cleanup(): Promise<void>;
  /** Absolute path all relative paths resolve against. */
  workingDirectory(): string;
  /** "linux" | "darwin" | "windows" | "wasm" | … */
  platform(): string;
  osVersion(): string;
  /** The absolute form of a path (no I/O beyond what confinement checks need). */
  resolvePath(path: string): string;

  /**
   * Reads a text file. Without options, the whole file as it is. With any option, a window of
   * lines (a CR before each LF dropped) joined with "\n", streamed: a 2 GB file read at line
   * 1 000 000 does not load the file, and a line longer than maxLineLength is never held whole.
   */
  readFile(path: string, options?: ReadFileOptions): Promise<string>;
  /** Reads raw bytes, at most maxBytes from the start when given. */
  readFileBytes(path: string, options?: { readonly maxBytes?: number }): Promise<Uint8Array>;
  /** Writes atomically (temp file + rename), creating parent directories and keeping the file mode. */
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
  deleteFile(path: string): Promise<void>;
  fileExists(path: string): Promise<boolean>;
  /** Metadata, or undefined when nothing is at the path. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Entries under path, down to depth levels (1 = direct children), .gitignore honoured, sorted by path. */
  listDirectory(path: string, depth?: number): Promise<readonly DirEntry[]>;

  /** Runs a shell command (bash -c) in its own process group. Never rejects for a non-zero exit. */
  execCommand(command: string, options?: ExecOptions): Promise<ExecResult>;

  grep(pattern: string, path: string, options?: GrepOptions): Promise<GrepResult>;
  /** Files matching the glob under path, .gitignore honoured, newest first. */
  glob(pattern: string, path?: string, options?: GlobOptions): Promise<GlobResult>;

  /**
   * Optional: starts a long-lived program (a language server) with piped stdio, where the files
   * are. Rejects with CommandError when it cannot be started; cleanup() kills it. Environments
   * without it cannot host such programs, and features needing one report themselves unavailable.
   */
  startProcess?(
    command: string,
    args: readonly string[],
    options?: StartProcessOptions,
  ): Promise<LongLivedProcess>;
}

export interface StartProcessOptions {
  /** Directory to run in; the working directory by default. */
  readonly workingDir?: string;
  /** Extra variables, added after the env-var policy is applied. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A program started by startProcess(), talking over its standard streams. */
export interface LongLivedProcess {
  readonly pid: number | undefined;
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** Settles once the process has exited (never rejects). */
  readonly exited: Promise<{ readonly exitCode: number | null; readonly signal: string | null }>;
  /** Stops the process and everything it started (SIGTERM, then SIGKILL after a grace period). */
  kill(): void;
}

export interface ReadFileOptions {
  /** 1-based first line. */
  readonly offset?: number;
  /** Number of lines. */
  readonly limit?: number;
  /**
   * Lines longer than this many characters are cut to it and end with
   * `… [line cut: N more characters]` (see lineCutMarker). Implementations may ignore it.
   */
  readonly maxLineLength?: number;
}

export interface FileStat {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymbolicLink: boolean;
  readonly size: number;
  readonly mtimeMs: number;
  readonly mode: number;
}

export interface DirEntry {
  /** Path relative to the listed directory, "/" separated. */
  readonly path: string;
  readonly name: string;
  readonly isDir: boolean;
  readonly size?: number;
}

export interface ExecOptions {
  /** Default 10 000 ms; clamped to the environment's maximum (600 000 ms). */
  readonly timeoutMs?: number;
  /** Directory to run in; the working directory by default. */
  readonly workingDir?: string;
  /** Extra variables, added after the env-var policy is applied. */
  readonly env?: Readonly<Record<string, string>>;
  /** Aborting kills the process group (SIGTERM, then SIGKILL after 2 s). */
  readonly signal?: AbortSignal;
  /** Receives output as it arrives (stdout and stderr interleaved). */
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
}

export interface ExecResult {
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr in arrival order. */
  readonly output: string;
  /** null when the process was killed by a signal. */
  readonly exitCode: number | null;
  readonly signal?: string;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly durationMs: number;
  /** Bytes dropped from the middle of the output to keep memory bounded. */
  readonly droppedBytes: number;
  /** Set by a sandboxed environment when the failure was caused by its sandbox. */
  readonly sandboxBlock?: SandboxBlock;
  /** True when a sandboxed environment ran this command outside its sandbox, as its host allowed. */
  readonly unsandboxed?: boolean;
}

/** Why the sandbox, and not the command itself, looks to be the cause of a failure. */
export type SandboxBlockKind = "write-outside" | "network" | "hidden-path";

/** A command failure a sandbox caused, as recognised from the command's output. */
export interface SandboxBlock {
  readonly kind: SandboxBlockKind;
  /** The output line that shows it. */
  readonly evidence: string;
  /** What to tell the model: the sandbox blocked it, and how the user can allow it. */
  readonly message: string;
}

export type GrepOutputMode = "content" | "files_with_matches" | "count";

export interface GrepOptions {
  /** Glob on file names, e.g. "*.ts". */
  readonly globFilter?: string;
  readonly caseInsensitive?: boolean;
  /** Default 100: matching lines (content), files, or count entries. */
  readonly maxResults?: number;
  readonly contextLines?: number;
  readonly outputMode?: GrepOutputMode;
  readonly signal?: AbortSignal;
}

export interface GrepMatch {
  /** Relative to the working directory when inside it, else absolute. */
  readonly path: string;
  readonly line: number;
  readonly text: string;
  /** Lines around the match, when contextLines > 0. */
  readonly before?: readonly string[];
  readonly after?: readonly string[];
}

export interface GrepResult {
  readonly mode: GrepOutputMode;
  /** content mode: matches in file-then-line order. */
  readonly matches: readonly GrepMatch[];
  /** files_with_matches and count modes: one entry per file. */
  readonly files: readonly { readonly path: string; readonly count: number }[];
  /** Total found before max_results applied (a lower bound when stoppedEarly). */
  readonly total: number;
  readonly truncated: boolean;
  /**
   * The search stopped once it had max_results and one more, without scanning the rest: more
   * results exist, but how many is not known. Which ones are returned then depends on the order
   * the engine found them in.
   */
  readonly stoppedEarly?: boolean;
  /** "ripgrep" or "javascript": which engine answered. */
  readonly engine: "ripgrep" | "javascript";
}

export interface GlobOptions {
  /** Default 1000 paths. */
  readonly maxResults?: number;
  readonly signal?: AbortSignal;
}

export interface GlobResult {
  /** Relative to the working directory when inside it, else absolute; newest first. */
  readonly paths: readonly string[];
  readonly total: number;
  readonly truncated: boolean;
}
