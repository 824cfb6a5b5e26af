import { spawn } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FleetTask } from "./task.js";
import type { ContainerSpec } from "./task-container.js";

/** Whether the agent's commands can be sandboxed on this worker (bubblewrap), as its operator's probe found. */
export type SandboxStatus =
  | { readonly available: true }
  | { readonly available: false; readonly reason: string };

/** The worker-wide part of every task's environment. */
export interface TaskEnvironment {
  /** A directory whose files (settings.json, MCP configuration, …) seed each attempt's attractor home. */
  readonly home?: string;
  /** A shell command run in every checkout before the agent, with network (before the task's own). */
  readonly setup?: string;
  /** What the sandbox can do here; unknown counts as unavailable. */
  readonly sandbox?: SandboxStatus;
  /** Refuse every task where the sandbox cannot run, and make the agent refuse commands rather than run them unsandboxed. */
  readonly requireSandbox?: boolean;
  /** Run each task's setup and the agent's commands in containers of this image, in place of bubblewrap. */
  readonly container?: ContainerSpec;
}

/** The isolation an attempt runs under, as reported with its result. */
export interface Isolation {
  readonly sandbox: boolean;
  readonly network: boolean;
  readonly description: string;
}

/** A task needs isolation this worker cannot give. */
export class IsolationUnavailableError extends Error {
  override readonly name = "IsolationUnavailableError";
}

type Settings = { sandbox?: { mode?: string; network?: boolean } } & Record<string, unknown>;

/**
 * The isolation a task gets here, or IsolationUnavailableError when it (or the worker) requires
 * a sandbox that cannot run.
 */
export function isolationFor(task: FleetTask, environment: TaskEnvironment, settings: Settings): Isolation {
  const network = task.network ?? settings.sandbox?.network ?? false;
  const container = environment.container;
  // The worker checked at its start that the runtime runs this image.
  if (container !== undefined)
    return {
      sandbox: true,
      network,
      description: `container ${container.image} (${container.runtime}), network ${network ? "on" : "off"} for the agent's commands`,
    };
  const required = task.isolation === "sandbox" || environment.requireSandbox === true;
  const status = environment.sandbox ?? {
    available: false,
    reason: "the worker did not probe for bubblewrap",
  };
  if (required && !status.available)
    throw new IsolationUnavailableError(
      `the task requires a sandbox and this worker cannot give one: ${status.reason}`,
    );
  const fullAccess = settings.sandbox?.mode === "danger-full-access";
  if (!status.available || fullAccess)
    return {
      sandbox: false,
      network: true,
      description: fullAccess
        ? "no sandbox (the worker's settings say danger-full-access): commands ran with network"
        : `no sandbox (${status.available ? "" : status.reason}): commands ran unsandboxed, with network`,
    };
  return {
    sandbox: true,
    network,
    description: `bubblewrap (${settings.sandbox?.mode ?? "workspace-write"}), network ${network ? "on" : "off"} for the agent's commands`,
  };
}

/** The worker's settings template (its settings.json), or an empty one. */
export async function templateSettings(environment: TaskEnvironment): Promise<Settings> {
  if (environment.home === undefined) return {};
  const text = await readFile(join(environment.home, "settings.json"), "utf8").catch(() => undefined);
  return text === undefined ? {} : (JSON.parse(text) as Settings);
}

/**
 * Seeds an attempt's attractor home from the worker's template (sessions left out) and writes
 * its settings with the task's network choice, so the operator's settings apply to every task.
 */
export async function prepareTaskHome(
  home: string,
  environment: TaskEnvironment,
  settings: Settings,
  isolation: Isolation,
): Promise<void> {
  if (environment.home !== undefined)
    await cp(environment.home, home, {
      recursive: true,
      filter: (source) => !source.startsWith(join(environment.home as string, "sessions")),
    });
  const merged: Settings = {
    ...settings,
    sandbox: { ...settings.sandbox, network: isolation.network },
  };
  await writeFile(join(home, "settings.json"), `${JSON.stringify(merged, null, 2)}\n`);
}

/** A setup command failed. */
export class SetupError extends Error {
  override readonly name = "SetupError";
}

/** How a setup command is started elsewhere (in a container): its argv, and how to end it. */
export interface SetupLauncher {
  argv(command: string): {
    readonly argv: readonly [string, ...string[]];
    readonly stop: () => Promise<void>;
  };
}

/**
 * Runs the setup commands (the worker's, then the task's) in the checkout with `sh -c` (or as
 * `launcher` starts them), in their own process group, ended on `signal`; resolves to their
 * combined output, rejects with SetupError (exit code and the output's tail) at the first that fails.
 */
export async function runSetup(
  commands: readonly string[],
  dir: string,
  env: Record<string, string>,
  signal: AbortSignal | undefined,
  launcher?: SetupLauncher,
): Promise<string> {
  let log = "";
  for (const command of commands) {
    log += `$ ${command}\n`;
    const launched = launcher?.argv(command);
    const [file, ...args] = launched?.argv ?? ["/bin/sh", "-c", command];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(file, args, {
        cwd: dir,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const add = (d: Buffer) => {
        if (log.length < 256 * 1024) log += d.toString("utf8");
      };
      child.stdout.on("data", add);
      child.stderr.on("data", add);
      const stop = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // Gone already.
        }
        void launched?.stop();
      };
      signal?.addEventListener("abort", stop, { once: true });
      if (signal?.aborted) stop();
      child.on("error", reject);
      child.on("close", (c) => {
        signal?.removeEventListener("abort", stop);
        resolve(c);
      });
    });
    if (code !== 0)
      throw new SetupError(
        `setup command failed (${code === null ? "killed" : `exit ${code}`}): ${command}\n${log.trim().split("\n").slice(-10).join("\n")}`,
      );
  }
  return log;
}
