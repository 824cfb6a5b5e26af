import { randomBytes } from "node:crypto";
import type { ExecOptions, ExecResult, LongLivedProcess, StartProcessOptions } from "../types/environment.js";
import {
  type LaunchPlan,
  LocalExecutionEnvironment,
  type LocalExecutionEnvironmentOptions,
  type PreparedCommand,
} from "./local.js";

/** Where commands run: a container already running, reached through its runtime's `exec`. */
export interface ContainerTarget {
  /** The container runtime's command: `podman`, `docker` or a path to either. */
  readonly runtime: string;
  /** The running container's name or id; the working directory must be mounted at the same path in it. */
  readonly container: string;
}

export interface ContainerExecutionEnvironmentOptions extends LocalExecutionEnvironmentOptions {
  readonly target: ContainerTarget;
}

/**
 * Runs on the host, leading the command's process group: starts the command in the container
 * (`exec`, which makes it a session leader there and writes its pid to a file in the container),
 * and on SIGTERM — a timeout, an abort, cleanup() — signals that group inside the container too,
 * SIGTERM then SIGKILL a second later: killing the runtime's `exec` client alone would leave the
 * command running in the container.
 */
const HOST_SCRIPT = [
  "rt=$1 name=$2 cwd=$3 pidfile=$4 cmd=$5; shift 5",
  '"$rt" exec -w "$cwd" "$@" "$name" /bin/sh -c \'echo $$ > "$0"; exec /bin/sh -c "$1"\' "$pidfile" "$cmd" &',
  "p=$!",
  'signal() { "$rt" exec "$name" /bin/sh -c \'kill -$1 -$(cat "$0") 2>/dev/null\' "$pidfile" "$1" >/dev/null 2>&1; }',
  "trap 'signal TERM; sleep 1; signal KILL; exit 143' TERM INT HUP",
  'wait "$p"; s=$?',
  '"$rt" exec "$name" rm -f "$pidfile" >/dev/null 2>&1',
  "exit $s",
].join("\n");

/** Variables that describe the host, not the container: never passed in. */
const HOST_ONLY = new Set([
  "PATH",
  "HOME",
  "PWD",
  "OLDPWD",
  "SHLVL",
  "HOSTNAME",
  "TMPDIR",
  "USER",
  "LOGNAME",
  "SHELL",
  "_",
]);

/**
 * The local environment with every shell command run inside a running container (Docker or
 * Podman) through its runtime's `exec`, in the same working directory: the container, started by
 * whoever gives it (a fleet worker, per task), is the sandbox — its image, its network (none, for
 * a task's agent), its mounts. File tools act on the mounted directory directly, as locally.
 * Commands get the variables of the run that are not the host's own (PATH, HOME… come from the
 * image); a command stopped by a timeout or an abort is ended inside the container as well.
 */
export class ContainerExecutionEnvironment extends LocalExecutionEnvironment {
  readonly target: ContainerTarget;

  constructor(options: ContainerExecutionEnvironmentOptions) {
    super(options);
    this.target = options.target;
  }

  /** Runs the command in the container; see the class comment. */
  override async execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return this.runCommandWith(command, options, async (prepared) => this.plan(prepared));
  }

  /** Starts a long-lived program in the container, its stdio piped through the runtime's `exec -i`. */
  override async startProcess(
    command: string,
    args: readonly string[],
    options: StartProcessOptions = {},
  ): Promise<LongLivedProcess> {
    const cwd = this.resolvePath(options.workingDir ?? ".");
    return super.startProcess(
      this.target.runtime,
      ["exec", "-i", "-w", cwd, ...this.envArgs(options.env ?? {}), this.target.container, command, ...args],
      options,
    );
  }

  private plan(prepared: PreparedCommand): LaunchPlan {
    const pidfile = `/tmp/.attractor-command-${randomBytes(6).toString("hex")}`;
    return {
      argv: [
        "/bin/sh",
        "-c",
        HOST_SCRIPT,
        "attractor-container-command",
        this.target.runtime,
        this.target.container,
        prepared.cwd,
        pidfile,
        prepared.command,
        ...this.envArgs(prepared.env),
      ],
    };
  }

  /** `--env NAME=VALUE` for each of the command's variables but those describing the host. */
  private envArgs(env: Readonly<Record<string, string>>): string[] {
    const out: string[] = [];
    for (const [name, value] of Object.entries(env))
      if (!HOST_ONLY.has(name)) out.push("--env", `${name}=${value}`);
    return out;
  }
}
