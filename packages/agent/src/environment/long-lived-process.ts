import { spawn } from "node:child_process";
import type { LongLivedProcess } from "../types/environment.js";
import { CommandError } from "./errors.js";
import { programOnPath } from "./program-on-path.js";
import { KILL_GRACE_MS } from "./run-command.js";

export interface SpawnLongLivedOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Called with a killer while the process runs (for cleanup()); returns the unregister function. */
  readonly register?: (kill: () => void) => () => void;
}

/**
 * Starts `command` (no shell) in its own process group with all three streams piped. Resolves
 * once the process has spawned; rejects with CommandError when it cannot start (not found, not
 * executable). kill() stops the whole group: SIGTERM, then SIGKILL after KILL_GRACE_MS.
 */
export function spawnLongLived(
  command: string,
  args: readonly string[],
  options: SpawnLongLivedOptions,
): Promise<LongLivedProcess> {
  // A bare name comes from PATH's absolute folders outside the working directory: a relative
  // entry (`.`) or a project folder in PATH would start the project's own program of that name.
  const program = programOnPath(command, options.env.PATH, options.cwd);
  if (!program.includes("/"))
    return Promise.reject(
      new CommandError(command, `Could not start ${command}: not found in PATH's absolute folders`),
    );
  return new Promise<LongLivedProcess>((resolve, reject) => {
    const child = spawn(program, [...args], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let killTimer: NodeJS.Timeout | undefined;
    const signalGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    const kill = (): void => {
      if (killTimer !== undefined || child.exitCode !== null || child.signalCode !== null) return;
      signalGroup("SIGTERM");
      killTimer = setTimeout(() => signalGroup("SIGKILL"), KILL_GRACE_MS);
      killTimer.unref();
    };
    const exited = new Promise<{ exitCode: number | null; signal: string | null }>((done) => {
      child.once("exit", (exitCode, signal) => {
        if (killTimer !== undefined) clearTimeout(killTimer);
        // Helpers the program started die with it.
        signalGroup("SIGKILL");
        unregister?.();
        done({ exitCode, signal });
      });
    });
    // A write to a process that died is reported by `exited`, not as an unhandled stream error.
    child.stdin.on("error", () => {});
    let unregister: (() => void) | undefined;
    child.once("error", (err) => {
      unregister?.();
      reject(new CommandError(command, `Could not start ${command}: ${err.message}`, { cause: err }));
    });
    child.once("spawn", () => {
      unregister = options.register?.(kill);
      resolve({
        pid: child.pid,
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        exited,
        kill,
      });
    });
  });
}
