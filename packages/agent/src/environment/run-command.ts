import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type { ExecResult } from "../types/environment.js";
import { BoundedOutput } from "./bounded-output.js";
import { CommandError } from "./errors.js";

/** Grace period between SIGTERM and SIGKILL, as the spec fixes it. */
export const KILL_GRACE_MS = 2_000;
/** How long to wait for pipes held open by escaped descendants after the command exits. */
const PIPE_DRAIN_MS = 500;
/** Bytes kept at each end of every captured stream. */
export const DEFAULT_CAPTURE_LIMIT = 1024 * 1024;

export interface RunCommandOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Bytes kept at the head and at the tail of each stream. */
  readonly captureLimit?: number;
  /** Called with a killer for the process group while the command runs (for cleanup()). */
  readonly register?: (kill: () => void) => () => void;
  /**
   * The program and arguments to run instead of `/bin/bash -c command` (a sandbox launcher that
   * ends in `/bin/bash -c command`); the first element is the executable.
   */
  readonly argv?: readonly [string, ...string[]];
}

/** Sends a signal to a whole process group, ignoring groups that are already gone. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group has exited already.
  }
}

/** Whether any process of the group is still there. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `command` with `/bin/bash -c` (or the launcher `argv` given) in a new process group with stdin closed. Resolves once the
 * process has exited and its pipes are closed; never rejects for a non-zero exit, a timeout or an
 * abort. Rejects with CommandError only when bash cannot be started.
 */
export function runCommand(command: string, options: RunCommandOptions): Promise<ExecResult> {
  const started = performance.now();
  const limit = options.captureLimit ?? DEFAULT_CAPTURE_LIMIT;
  return new Promise<ExecResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve(emptyResult(true, performance.now() - started));
      return;
    }
    const [program, ...args] = options.argv ?? ["/bin/bash", "-c", command];
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = new BoundedOutput(limit);
    const stderr = new BoundedOutput(limit);
    const combined = new BoundedOutput(limit);
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    let spawnFailed = false;

    // The SIGKILL timer is not unref'd and survives the result: a process that traps SIGTERM
    // keeps running after bash died, and must still be killed even if the host exits meanwhile.
    const terminate = (): void => {
      const pid = child.pid;
      if (pid === undefined || killTimer !== undefined) return;
      killGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => killGroup(pid, "SIGKILL"), KILL_GRACE_MS);
    };
    const timeout = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      terminate();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const unregister = options.register?.(() => {
      aborted = true;
      terminate();
    });

    const wire = (stream: NodeJS.ReadableStream, own: BoundedOutput, name: "stdout" | "stderr"): void => {
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => {
        own.push(chunk);
        const text = decoder.write(chunk);
        if (text.length === 0) return;
        combined.push(Buffer.from(text));
        options.onOutput?.(text, name);
      });
      stream.on("end", () => {
        const text = decoder.end();
        if (text.length === 0) return;
        combined.push(Buffer.from(text));
        options.onOutput?.(text, name);
      });
    };
    wire(child.stdout, stdout, "stdout");
    wire(child.stderr, stderr, "stderr");

    child.on("error", (err) => {
      spawnFailed = true;
      clearTimeout(timeout);
      unregister?.();
      options.signal?.removeEventListener("abort", onAbort);
      reject(new CommandError(command, `Could not start command: ${err.message}`, { cause: err }));
    });
    // Background jobs die with the command: once bash exits on its own, its whole group is
    // killed. After a timeout or an abort the group keeps its grace period instead (SIGKILL comes
    // KILL_GRACE_MS after SIGTERM), and what it prints while shutting down is still captured. A
    // process that left the group (setsid) may hold the pipes forever, so waiting for them is bounded.
    child.on("exit", () => {
      const terminating = killTimer !== undefined;
      if (!terminating && child.pid !== undefined) killGroup(child.pid, "SIGKILL");
      const drain = setTimeout(
        () => {
          child.stdout.destroy();
          child.stderr.destroy();
        },
        terminating ? KILL_GRACE_MS + PIPE_DRAIN_MS : PIPE_DRAIN_MS,
      );
      drain.unref();
      child.once("close", () => clearTimeout(drain));
    });
    // "close" waits for the pipes too, so output written just before exit is not lost.
    child.on("close", (code, signal) => {
      if (spawnFailed) return;
      clearTimeout(timeout);
      unregister?.();
      options.signal?.removeEventListener("abort", onAbort);
      if (killTimer !== undefined && child.pid !== undefined && !groupAlive(child.pid)) {
        clearTimeout(killTimer);
      }
      resolve({
        stdout: stdout.text(),
        stderr: stderr.text(),
        output: combined.text(),
        exitCode: code,
        ...(signal !== null && { signal }),
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
        droppedBytes: Math.max(stdout.droppedBytes() + stderr.droppedBytes(), combined.droppedBytes()),
      });
    });
  });
}

function emptyResult(aborted: boolean, durationMs: number): ExecResult {
  return {
    stdout: "",
    stderr: "",
    output: "",
    exitCode: null,
    timedOut: false,
    aborted,
    durationMs: Math.round(durationMs),
    droppedBytes: 0,
  };
}
