import { spawn } from "node:child_process";
import { absolutePath, programOnPath } from "@attractor/agent";

/** A git command that failed. */
export class CheckpointGitError extends Error {
  override readonly name = "CheckpointGitError";
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(
      `git ${args.slice(0, 3).join(" ")} failed (exit ${exitCode}): ${stderr.trim().split("\n").slice(-3).join(" ")}`,
    );
  }
}

/**
 * Git settings that keep the shadow repository independent of user and system configuration.
 * No value may contain a space: scripts pass them on word-split.
 */
const ISOLATION = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "commit.gpgsign=false",
  "-c",
  "core.autocrlf=false",
  "-c",
  "core.safecrlf=false",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.quotePath=false",
  "-c",
  "core.longpaths=true",
  "-c",
  "gc.auto=0",
  "-c",
  "user.name=attractor",
  "-c",
  "user.email=checkpoints@attractor.invalid",
];

export interface GitRunOptions {
  readonly input?: string;
  /** Output beyond this many characters is dropped and `truncated` set; keeps memory bounded. */
  readonly maxOutput?: number;
}

/**
 * A line a script prints to say it reached a point (the project read, say) while it goes on:
 * `reached` is called when the line arrives, and the line is left out of the output.
 */
export interface ScriptSignal {
  readonly line: string;
  readonly reached: () => void;
}

export interface GitRunResult {
  readonly stdout: string;
  readonly truncated: boolean;
}

/**
 * The environment git runs in: the caller's, with its GIT_* overrides removed and PATH cut to its
 * absolute folders outside the project, since git (and the snapshot scripts' git) starts in the
 * project, where a relative PATH entry (`.`) would run the project's own `git`.
 */
function gitEnvironment(workTree: string, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  env.PATH = absolutePath(process.env.PATH, workTree);
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_TERMINAL_PROMPT = "0";
  return Object.assign(env, extra);
}

/**
 * Runs git against a shadow git dir and a work tree (no dir flags when gitDir is undefined), with
 * the environment's GIT_* overrides removed.
 */
export function runGit(
  gitDir: string | undefined,
  workTree: string,
  args: readonly string[],
  options: GitRunOptions = {},
): Promise<GitRunResult> {
  const full = [...ISOLATION, ...(gitDir ? [`--git-dir=${gitDir}`, `--work-tree=${workTree}`] : []), ...args];
  const env = gitEnvironment(workTree);
  const git = programOnPath("git", env.PATH);
  if (!git.includes("/"))
    return Promise.reject(new CheckpointGitError(args, null, "git not found in PATH's absolute folders"));
  return collect(git, full, workTree, env, args, options);
}

/**
 * Runs a POSIX shell script of git commands in one process (each process started from Node costs
 * the event loop a fork of the whole runtime; git commands started by `sh` are cheap). The script
 * reaches the shadow repository through GIT_DIR and GIT_WORK_TREE, and must pass `$GIT_ISOLATION`
 * (the isolation settings, unquoted) to every git command; `env` adds variables of its own.
 */
export function runGitScript(
  gitDir: string,
  workTree: string,
  script: string,
  options: GitRunOptions & {
    readonly env?: Readonly<Record<string, string>>;
    readonly signal?: ScriptSignal;
  } = {},
): Promise<GitRunResult> {
  const env = gitEnvironment(workTree, {
    ...options.env,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: workTree,
    GIT_ISOLATION: ISOLATION.join(" "),
  });
  // /bin/sh itself, not whatever `sh` comes first on the PATH.
  return collect("/bin/sh", ["-c", script], workTree, env, ["(script)"], options);
}

/** Where `line` stands as a whole line in `text` (-1 when it does not). */
function lineAt(text: string, line: string): number {
  if (text.startsWith(`${line}\n`)) return 0;
  const at = text.indexOf(`\n${line}\n`);
  return at < 0 ? -1 : at + 1;
}

function collect(
  command: string,
  argv: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  reported: readonly string[],
  options: GitRunOptions & { readonly signal?: ScriptSignal },
): Promise<GitRunResult> {
  const signal = options.signal;
  const limit = options.maxOutput ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const out: string[] = [];
    let size = 0;
    let truncated = false;
    let stderr = "";
    // The output up to the signal's line, while it has not come.
    let awaiting: string | undefined = signal === undefined ? undefined : "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      let text = chunk;
      if (awaiting !== undefined && signal !== undefined) {
        awaiting += chunk;
        const at = lineAt(awaiting, signal.line);
        if (at < 0) return;
        text = awaiting.slice(0, at) + awaiting.slice(at + signal.line.length + 1);
        awaiting = undefined;
        signal.reached();
      }
      if (text === "") return;
      if (size >= limit) {
        truncated = true;
        return;
      }
      const room = limit - size;
      if (text.length > room) truncated = true;
      const kept = text.length > room ? text.slice(0, room) : text;
      out.push(kept);
      size += kept.length;
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 16_384) stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      // Output of a script that never reached the signal's line.
      if (awaiting) {
        const room = Math.max(0, limit - size);
        if (awaiting.length > room) truncated = true;
        out.push(awaiting.slice(0, room));
      }
      if (code === 0) resolve({ stdout: out.join(""), truncated });
      else reject(new CheckpointGitError(reported, code, stderr));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}
