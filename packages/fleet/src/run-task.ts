import { execFileSync, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { FleetTask } from "./task.js";
import { type Workspace, workspacePatch } from "./workspace.js";

/** What one attempt of a task produced. */
export interface TaskOutcome {
  readonly status: "completed" | "failed";
  /** The agent's final answer. */
  readonly result: string;
  readonly patch: string;
  readonly usage: Record<string, number>;
  readonly cost_usd: number | null;
  readonly turns: number;
  readonly duration_ms: number;
  readonly session_id?: string;
  /** The session's transcript (JSONL), when it was written. */
  readonly transcript?: string;
  readonly error?: { readonly message: string; readonly status_code?: number };
  readonly exit_code: number | null;
  /** The agent's standard error (its first 64 KiB). */
  readonly log?: string;
}

/** How to start the attractor command: its argv prefix (node and the entry file, usually). */
export type AttractorCommand = readonly [string, ...string[]];

const DEFAULT_TIMEOUT_S = 1800;
/** Variables a task never takes from the worker: they would send it somewhere else. */
const WORKER_ONLY = ["ATTRACTOR_HOME"];

let pdeathsig: boolean | undefined;

/** Whether util-linux's setpriv can give a child a parent-death signal here (Linux only). */
export function parentDeathSignalAvailable(): boolean {
  if (pdeathsig === undefined) {
    try {
      pdeathsig = execFileSync("setpriv", ["--help"], { encoding: "utf8" }).includes("--pdeathsig");
    } catch {
      pdeathsig = false;
    }
  }
  return pdeathsig;
}

/**
 * The argv that runs `argv` as a process group that ends with the worker: a shell leads the group
 * and, on SIGTERM (sent by the kernel when the worker dies, through setpriv's parent-death signal,
 * or by the worker to stop the task), passes it to the agent and after two seconds kills the whole
 * group, tool processes included.
 */
function supervised(argv: readonly string[]): [string, ...string[]] {
  const script =
    '"$@" & p=$!; trap \'kill -TERM "$p" 2>/dev/null; sleep 2; kill -KILL 0\' TERM INT HUP; wait "$p"; s=$?; wait "$p" 2>/dev/null; exit $s';
  const shell: [string, ...string[]] = ["/bin/sh", "-c", script, "attractor-task", ...argv];
  return parentDeathSignalAvailable() ? ["setpriv", "--pdeathsig", "SIGTERM", "--", ...shell] : shell;
}

/** Finds a session's transcript under an attractor home. */
async function findTranscript(home: string, sessionId: string): Promise<string | undefined> {
  const sessions = join(home, "sessions");
  for (const dir of await readdir(sessions).catch(() => [] as string[])) {
    const text = await readFile(join(sessions, dir, `${sessionId}.jsonl`), "utf8").catch(() => undefined);
    if (text !== undefined) return text;
  }
  return undefined;
}

/**
 * Runs one attempt of a task: the attractor command headless in the workspace (JSON output, its
 * own process group, killed with the group when the task's timeout passes or `signal` aborts),
 * then the patch of what it changed. Provider keys and base URLs come from `env`, the worker's.
 */
export async function runTask(
  task: FleetTask,
  workspace: Workspace,
  command: AttractorCommand,
  env: Readonly<Record<string, string | undefined>>,
  signal?: AbortSignal,
  mode?: string,
  extraArgs: readonly string[] = [],
): Promise<TaskOutcome> {
  const started = performance.now();
  const args = [
    ...command.slice(1),
    "-p",
    task.prompt,
    "--output-format",
    "json",
    "--cwd",
    workspace.dir,
    "--permission-mode",
    mode ?? task.mode ?? "yolo",
    ...(task.provider !== undefined ? ["--provider", task.provider] : []),
    ...(task.model !== undefined ? ["--model", task.model] : []),
    ...(task.max_turns !== undefined ? ["--max-turns", String(task.max_turns)] : []),
    ...(task.remote !== undefined ? ["--remote", task.remote] : []),
    ...extraArgs,
  ];
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !WORKER_ONLY.includes(k)) childEnv[k] = v;
  childEnv.ATTRACTOR_HOME = workspace.home;
  const [file, ...argv] = supervised([command[0], ...args]);
  const child = spawn(file, argv, {
    cwd: workspace.dir,
    env: childEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid !== undefined) void workspace.recordAgent(child.pid).catch(() => undefined);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    if (stderr.length < 64 * 1024) stderr += d;
  });
  let killedFor: string | undefined;
  const kill = (why: string) => {
    killedFor ??= why;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }, 2_000).unref();
    } catch {
      // Gone already.
    }
  };
  const timer = setTimeout(
    () => kill(`timed out after ${task.timeout_s ?? DEFAULT_TIMEOUT_S} s`),
    (task.timeout_s ?? DEFAULT_TIMEOUT_S) * 1000,
  );
  const onAbort = () => kill(typeof signal?.reason === "string" ? signal.reason : "stopped");
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (c) => resolve(c));
  }).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    json = undefined;
  }
  const patch = await workspacePatch(workspace).catch(() => "");
  const sessionId = typeof json?.session_id === "string" ? json.session_id : undefined;
  const transcript = sessionId !== undefined ? await findTranscript(workspace.home, sessionId) : undefined;
  const errorField = json?.error as { message?: string; status_code?: number } | undefined;
  const failed = code !== 0 || json === undefined || json.is_error === true;
  const message =
    killedFor ??
    errorField?.message ??
    (json === undefined
      ? `attractor exited with ${code}: ${stderr.trim().split("\n").slice(-3).join(" ")}`
      : undefined) ??
    (failed ? `the run ended with ${String(json?.subtype)}` : undefined);
  return {
    status: failed ? "failed" : "completed",
    result: typeof json?.result === "string" ? json.result : "",
    patch,
    usage: (json?.usage as Record<string, number> | undefined) ?? {},
    cost_usd:
      json?.cost_known === false
        ? null
        : typeof json?.total_cost_usd === "number"
          ? json.total_cost_usd
          : null,
    turns: typeof json?.num_turns === "number" ? json.num_turns : 0,
    duration_ms: Math.round(performance.now() - started),
    ...(sessionId !== undefined && { session_id: sessionId }),
    ...(transcript !== undefined && { transcript }),
    ...(failed &&
      message !== undefined && {
        error: {
          message,
          ...(errorField?.status_code !== undefined && { status_code: errorField.status_code }),
        },
      }),
    exit_code: code,
    ...(stderr !== "" && { log: stderr }),
  };
}
