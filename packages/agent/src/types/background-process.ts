import type { ExecutionEnvironment } from "./environment.js";

/** One command started in the background, as the tools and hosts see it. */
export interface BackgroundProcessInfo {
  readonly id: string;
  readonly command: string;
  readonly pid: number | undefined;
  /** Runs under a pseudo-terminal. */
  readonly tty: boolean;
  readonly startedAt: number;
  readonly running: boolean;
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/** What a process printed since it was last read, and whether it still runs. */
export interface BackgroundRead {
  readonly info: BackgroundProcessInfo;
  readonly output: string;
  /** Characters dropped because more was printed than is kept between reads. */
  readonly droppedChars: number;
}

export interface BackgroundStartOptions {
  /** Run under a pseudo-terminal, for programs that need one to prompt or echo. */
  readonly tty?: boolean;
  readonly workingDir?: string;
}

/**
 * A session's commands running in the background (the shell tool's run_in_background): what
 * shell_output, shell_input and shell_kill act on, and what the session stops when it ends.
 */
export interface BackgroundProcessTable {
  /** Starts a bash command through the environment; resolves once it has spawned. */
  start(
    env: ExecutionEnvironment,
    command: string,
    options?: BackgroundStartOptions,
  ): Promise<BackgroundProcessInfo>;
  /** Output since the last read (after waiting up to waitMs for it), lines filtered when asked. */
  read(
    id: string,
    options?: { readonly waitMs?: number; readonly filter?: RegExp; readonly signal?: AbortSignal },
  ): Promise<BackgroundRead>;
  /** Writes to the process's standard input. */
  write(id: string, text: string): Promise<void>;
  /** Stops the process and everything it started; resolves once it has exited. */
  stop(id: string): Promise<BackgroundProcessInfo>;
  /** Stops every process still running. */
  stopAll(): Promise<void>;
  list(): BackgroundProcessInfo[];
  runningCount(): number;
}
