import { spawn } from "node:child_process";

/** What one hook command did. */
export interface CommandRun {
  /** The exit code; undefined when the command could not start, timed out or died by a signal. */
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Why it could not start, when it could not. */
  readonly spawnError?: string;
}

/** Output kept per stream; a hook printing more is cut (its JSON would not parse anyway). */
const MAX_OUTPUT_CHARS = 256 * 1024;
/** How long output is still read after the hook's own process has exited. */
const AFTER_EXIT_MS = 200;
/** After SIGTERM, how long a timed-out hook gets before SIGKILL. */
const KILL_GRACE_MS = 1000;

/**
 * Runs `command` with /bin/sh in its own process group, `input` on stdin, and resolves when it
 * ends or after `timeoutMs` (the group is then killed). Never rejects.
 */
export function runHookCommand(
  command: string,
  options: {
    readonly input: string;
    readonly cwd: string;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly timeoutMs: number;
    /** Starts the command some other way than `/bin/sh -c` (inside a sandbox). */
    readonly launch?: (command: string) => { readonly file: string; readonly args: readonly string[] };
  },
): Promise<CommandRun> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let settled = false;
    const launch = options.launch?.(command) ?? { file: "/bin/sh", args: ["-c", command] };
    const child = spawn(launch.file, [...launch.args], {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup("SIGTERM");
      killTimer = setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
      // A hook whose grandchildren keep the pipes open must not hold the session: answer now.
      finish(undefined);
    }, options.timeoutMs);
    const finish = (exitCode: number | undefined, spawnError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        exitCode: timedOut ? undefined : exitCode,
        stdout,
        stderr,
        timedOut,
        ...(spawnError !== undefined && { spawnError }),
      });
    };
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length < MAX_OUTPUT_CHARS) stdout += d.slice(0, MAX_OUTPUT_CHARS - stdout.length);
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < MAX_OUTPUT_CHARS) stderr += d.slice(0, MAX_OUTPUT_CHARS - stderr.length);
    });
    child.on("error", (error) => finish(undefined, error.message));
    child.on("close", (code) => {
      if (killTimer) clearTimeout(killTimer);
      finish(code ?? undefined);
    });
    // A hook that leaves a background process holding its output open is done when it exits:
    // what it printed is read for a moment more, then the answer is given.
    child.on("exit", (code) => {
      setTimeout(() => finish(code ?? undefined), AFTER_EXIT_MS).unref();
    });
    // A hook that does not read its input must not make writing fail loudly.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input);
  });
}
