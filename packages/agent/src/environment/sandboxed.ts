import { accessSync, constants } from "node:fs";
import { mkdtemp, realpath, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join, relative, resolve } from "node:path";
import type {
  ExecOptions,
  ExecResult,
  LongLivedProcess,
  SandboxBlock,
  StartProcessOptions,
} from "../types/environment.js";
import { CommandError } from "./errors.js";
import {
  type LaunchPlan,
  LocalExecutionEnvironment,
  type LocalExecutionEnvironmentOptions,
  type PreparedCommand,
} from "./local.js";
import { detectSandboxBlock } from "./sandbox/blocked.js";
import { bwrapArguments } from "./sandbox/bwrap-args.js";
import { probeBubblewrap } from "./sandbox/bwrap-probe.js";
import { createSandboxPolicy, type SandboxMode, type SandboxPolicy } from "./sandbox/policy.js";
import { programReadPaths } from "./sandbox/program-paths.js";
import { seatbeltProfile } from "./sandbox/seatbelt.js";
import { SharedNetworkNamespace } from "./sandbox/shared-network.js";

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Whether commands really run sandboxed, and by what; `reason` says why not. */
export type SandboxAvailability =
  | { readonly active: true; readonly kind: "bubblewrap" | "seatbelt" }
  | { readonly active: false; readonly reason: string };

/** What a host is asked when a command failed because of the sandbox. */
export interface SandboxEscapeRequest {
  readonly command: string;
  readonly block: SandboxBlock;
  readonly policy: SandboxPolicy;
}

/** Re-run the command outside the sandbox this once, for every later run of the same command, or not. */
export type SandboxEscapeAnswer = "once" | "always" | "no";

/** How commands are sandboxed. */
export interface SandboxOptions {
  /** workspace-write by default; danger-full-access runs commands as the local environment does. */
  readonly mode?: SandboxMode;
  /** Network access for commands; off by default. */
  readonly network?: boolean;
  /** More writable directories beside the working directory. */
  readonly writableDirs?: readonly string[];
  /** Project directories besides the working directory. */
  readonly projectDirs?: readonly string[];
  /** More paths kept read-only inside the writable ones (a host's own settings folder…). */
  readonly readOnlyPaths?: readonly string[];
  /** More paths to hide beside the credential paths under the home directory. */
  readonly hiddenPaths?: readonly string[];
  /** The home directory whose credential folders are hidden; os.homedir() by default. */
  readonly home?: string;
  /**
   * When the sandbox cannot run here: true refuses every command (CommandError), false (default)
   * runs them unsandboxed after telling `onUnavailable` once.
   */
  readonly required?: boolean;
  /** Told once, with the reason, when commands run without the sandbox because it cannot run here. */
  readonly onUnavailable?: (reason: string) => void;
  /**
   * Asked when a command failed because of the sandbox: whether to run it again outside. Without
   * it, the result carries `sandboxBlock`, whose message tells the model what happened.
   */
  readonly onBlocked?: (request: SandboxEscapeRequest) => Promise<SandboxEscapeAnswer>;
  /** The last sentence of the model's message for a blocked command: how the user can allow it. */
  readonly blockedHint?: string;
  /**
   * The PATH bwrap is looked up in; the host's PATH by default. Relative entries and entries
   * inside the directories commands can write are skipped: a `bwrap` planted there would not sandbox.
   */
  readonly searchPath?: string;
  /**
   * Commands to run with the read-only policy although the mode is workspace-write: a host that
   * judged a command read-only (and, say, took no checkpoint before it) makes the judgement hold,
   * so a misjudged command cannot change the project.
   */
  readonly readOnlyFor?: (command: string) => boolean | Promise<boolean>;
  /** EXPERIMENTAL: sandbox commands on macOS with a generated Seatbelt profile (off by default). */
  readonly experimentalSeatbelt?: boolean;
}

export interface SandboxedExecutionEnvironmentOptions extends LocalExecutionEnvironmentOptions {
  readonly sandbox?: SandboxOptions;
}

const DEFAULT_HINT =
  "If the command is needed, say so: the user can allow it to run outside the sandbox, or give the sandbox more access.";

/**
 * The local environment with every shell command, and whatever it starts, run in an OS sandbox:
 * bubblewrap on Linux, Seatbelt (experimental) on macOS. The file system is read-only but the
 * project directories and a private /tmp; git hooks and config stay read-only; credential paths
 * are hidden; there is no network unless allowed; on Linux a PID namespace ends every process
 * the command left behind, and the command sees only its own /proc. File tools (read, write,
 * edit) act directly, as in the local environment: guarding them is the host's permission layer.
 * Where no sandbox can run, commands run unsandboxed after one notice, or are refused when
 * `required` is set.
 */
export class SandboxedExecutionEnvironment extends LocalExecutionEnvironment {
  /** Built on first use: a run under danger-full-access never needs it. */
  private currentPolicy: SandboxPolicy | undefined;
  private readonly sandbox: SandboxOptions;
  private readonly baseEnv: Readonly<Record<string, string | undefined>> | undefined;
  private readonly alwaysOutside = new Set<string>();
  private tmpDir: Promise<string> | undefined;
  private readonly sharedNetwork = new SharedNetworkNamespace(() => this.bwrapSearchPath());
  private status: Promise<SandboxAvailability> | undefined;
  private warned = false;
  /** Sandboxed commands running now, and the placeholder folders their sandboxes made on the host. */
  private sandboxedRunning = 0;
  private readonly placeholdersMade = new Set<string>();
  /** Their removal, running in the background: the next command waits for it before it starts. */
  private placeholderRemoval: Promise<void> = Promise.resolve();

  constructor(options: SandboxedExecutionEnvironmentOptions = {}) {
    const projectDirs = options.projectDirs ?? options.sandbox?.projectDirs;
    super({ ...options, ...(projectDirs !== undefined && { projectDirs }) });
    this.sandbox = options.sandbox ?? {};
    this.baseEnv = options.baseEnv;
  }

  /** The sandbox mode commands run under. */
  get mode(): SandboxMode {
    return this.sandbox.mode ?? "workspace-write";
  }

  /** The policy commands run under (computed again before each command, see buildPolicy). */
  get policy(): SandboxPolicy {
    this.currentPolicy ??= this.buildPolicy();
    return this.currentPolicy;
  }

  /**
   * The policy for the next command. Built again for every command: a git repository created by
   * an earlier command gets its hooks and config protected from then on.
   */
  private buildPolicy(mode: SandboxMode = this.mode): SandboxPolicy {
    return createSandboxPolicy({
      mode,
      projectDirs: [this.workingDirectory(), ...(this.sandbox.projectDirs ?? [])],
      ...(this.sandbox.writableDirs !== undefined && { writableDirs: this.sandbox.writableDirs }),
      ...(this.sandbox.readOnlyPaths !== undefined && { readOnlyPaths: this.sandbox.readOnlyPaths }),
      ...(this.sandbox.hiddenPaths !== undefined && { hiddenPaths: this.sandbox.hiddenPaths }),
      network: this.sandbox.network ?? false,
      ...(this.sandbox.home !== undefined && { home: this.sandbox.home }),
      ...(this.baseEnv !== undefined && { env: this.baseEnv }),
    });
  }

  /** The PATH to find bwrap in, without entries a command could have planted a fake one in. */
  private bwrapSearchPath(): string {
    const policy = this.policy;
    const writable = [...policy.projectRoots, ...policy.writableRoots];
    return (this.sandbox.searchPath ?? process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => isAbsolute(dir) && !writable.some((root) => isInside(root, resolve(dir))))
      .join(delimiter);
  }

  /** Whether commands will run sandboxed here; probes once (a few ms) and caches the answer. */
  availability(): Promise<SandboxAvailability> {
    this.status ??= this.detect();
    return this.status;
  }

  private async detect(): Promise<SandboxAvailability> {
    if (this.mode === "danger-full-access")
      return { active: false, reason: "full access was chosen (danger-full-access)" };
    if (process.platform === "darwin") {
      if (!this.sandbox.experimentalSeatbelt)
        return {
          active: false,
          reason: "the macOS (Seatbelt) sandbox is experimental and was not turned on",
        };
      try {
        accessSync(SANDBOX_EXEC, constants.X_OK);
        return { active: true, kind: "seatbelt" };
      } catch {
        return { active: false, reason: `${SANDBOX_EXEC} is missing` };
      }
    }
    const bwrap = await probeBubblewrap(this.bwrapSearchPath());
    return bwrap.available ? { active: true, kind: "bubblewrap" } : { active: false, reason: bwrap.reason };
  }

  /**
   * Resolves once the placeholder folders of finished commands are gone from the host (they are
   * removed in the background after each command; the next command waits for it anyway).
   */
  settled(): Promise<void> {
    return this.placeholderRemoval;
  }

  override async cleanup(): Promise<void> {
    await super.cleanup();
    await this.placeholderRemoval;
    this.sharedNetwork.close();
    const dir = this.tmpDir;
    this.tmpDir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => {});
  }

  /** Runs the command in the sandbox; see the class comment for what happens when it cannot run. */
  override async execCommand(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    if (this.mode === "danger-full-access") return super.execCommand(command, options);
    await this.placeholderRemoval;
    const current = this.buildPolicy();
    this.currentPolicy = current;
    const policy =
      current.mode === "workspace-write" && (await this.sandbox.readOnlyFor?.(command)) === true
        ? this.buildPolicy("read-only")
        : current;
    if (this.alwaysOutside.has(command))
      return { ...(await super.execCommand(command, options)), unsandboxed: true };
    const available = await this.availability();
    if (!available.active) {
      if (this.sandbox.required)
        throw new CommandError(
          command,
          `The sandbox cannot run here, so the command was not run: ${available.reason}`,
        );
      if (!this.warned) {
        this.warned = true;
        this.sandbox.onUnavailable?.(available.reason);
      }
      return super.execCommand(command, options);
    }
    this.sandboxedRunning++;
    if (available.kind === "bubblewrap")
      for (const p of policy.placeholderPaths ?? []) this.placeholdersMade.add(p);
    let result: ExecResult;
    try {
      result = await this.runCommandWith(command, options, (prepared) =>
        available.kind === "bubblewrap"
          ? this.bubblewrapPlan(prepared, policy)
          : this.seatbeltPlan(prepared, policy),
      );
    } finally {
      if (--this.sandboxedRunning === 0) this.removePlaceholders();
    }
    const block = detectSandboxBlock(result, policy, this.sandbox.blockedHint ?? DEFAULT_HINT);
    if (block === undefined) return result;
    const ask = this.sandbox.onBlocked;
    if (ask !== undefined && !options.signal?.aborted) {
      const answer = await ask({ command, block, policy });
      if ((answer === "once" || answer === "always") && !options.signal?.aborted) {
        if (answer === "always") this.alwaysOutside.add(command);
        // Whoever watches the output sees where the sandboxed attempt ends and the second run starts.
        options.onOutput?.("\n[running it again outside the sandbox]\n", "stderr");
        return { ...(await super.execCommand(command, options)), unsandboxed: true };
      }
    }
    return { ...result, sandboxBlock: block };
  }

  /**
   * Starts a long-lived program (an MCP server) inside the sandbox on the policy commands get
   * (the project writable under workspace-write, no network unless allowed). Where no sandbox
   * can run: refused when `required`, otherwise started outside it after the notice.
   * startProcess() stays unsandboxed.
   */
  async startSandboxedProcess(
    command: string,
    args: readonly string[],
    options: StartProcessOptions = {},
  ): Promise<LongLivedProcess> {
    if (this.mode === "danger-full-access") return super.startProcess(command, args, options);
    await this.placeholderRemoval;
    const current = this.buildPolicy();
    this.currentPolicy = current;
    const available = await this.availability();
    if (!available.active) {
      if (this.sandbox.required)
        throw new CommandError(
          command,
          `The sandbox cannot run here, so ${command} was not started: ${available.reason}`,
        );
      if (!this.warned) {
        this.warned = true;
        this.sandbox.onUnavailable?.(available.reason);
      }
      return super.startProcess(command, args, options);
    }
    if (available.kind === "seatbelt") {
      const tmpDir = await this.privateTmp();
      const profile = seatbeltProfile(current, { tmpDir });
      return super.startProcess(SANDBOX_EXEC, ["-p", profile, command, ...args], {
        ...options,
        env: { ...options.env, TMPDIR: tmpDir },
      });
    }
    const bwrap = await probeBubblewrap(this.bwrapSearchPath());
    if (!bwrap.available) throw new CommandError(command, `The sandbox cannot run: ${bwrap.reason}`);
    const cwd = this.resolvePath(options.workingDir ?? ".");
    // No placeholders for a program that runs the whole session: their empty folders would stay
    // on the host all that time. Code-running files that exist stay read-only to it.
    const joined = await this.joinNetwork({ ...current, placeholderPaths: [] }, bwrap.path);
    const sandboxArgs = bwrapArguments(joined.policy, {
      cwd,
      tmpDir: await this.privateTmp(),
      disableUserns: bwrap.disableUserns,
      // A server installed under the host's /tmp stays readable over the private one.
      programPaths: programReadPaths([command, ...args]),
    });
    const [program, ...rest] = [...joined.prefix, bwrap.path, ...sandboxArgs, "--", command, ...args];
    return super.startProcess(program as string, rest, {
      ...options,
      // The host's TMPDIR may point at a directory the sandbox makes read-only.
      env: { ...options.env, TMPDIR: "/tmp" },
    });
  }

  /**
   * Removes the empty folders bwrap made on the host as mount points for placeholders, once no
   * sandboxed command runs (a running one still holds its mounts). rmdir removes only an empty
   * folder, so nothing anyone wrote there is lost. In the background: removing a folder that was
   * a mount point in a namespace just torn down waits a couple of milliseconds each, which the
   * command's result need not wait for; the next command waits instead, so it never starts with
   * a placeholder about to vanish under its mounts.
   */
  private removePlaceholders(): void {
    const paths = [...this.placeholdersMade];
    this.placeholdersMade.clear();
    this.placeholderRemoval = this.placeholderRemoval.then(async () => {
      await Promise.all(paths.map((path) => rmdir(path).catch(() => {})));
    });
  }

  private privateTmp(): Promise<string> {
    // The real path: Seatbelt matches paths after symlinks (/var → /private/var) are resolved.
    this.tmpDir ??= mkdtemp(join(tmpdir(), "attractor-sandbox-")).then((dir) => realpath(dir));
    return this.tmpDir;
  }

  private async bubblewrapPlan(prepared: PreparedCommand, policy: SandboxPolicy): Promise<LaunchPlan> {
    const bwrap = await probeBubblewrap(this.bwrapSearchPath());
    if (!bwrap.available) throw new CommandError(prepared.command, `The sandbox cannot run: ${bwrap.reason}`);
    const joined = await this.joinNetwork(policy, bwrap.path);
    const args = bwrapArguments(joined.policy, {
      cwd: prepared.cwd,
      tmpDir: await this.privateTmp(),
      disableUserns: bwrap.disableUserns,
    });
    return {
      argv: [
        ...((joined.prefix.length > 0 ? joined.prefix : [bwrap.path]) as [string, ...string[]]),
        ...(joined.prefix.length > 0 ? [bwrap.path] : []),
        ...args,
        "--",
        "/bin/bash",
        "-c",
        prepared.command,
      ],
      // The host's TMPDIR may point at a directory the sandbox makes read-only.
      env: { ...prepared.env, TMPDIR: "/tmp" },
    };
  }

  /**
   * Without network, commands share one loopback-only network namespace (see
   * SharedNetworkNamespace), so a server one starts is reachable from the next: the prefix that
   * enters it, and the policy for bubblewrap with the network already taken care of.
   */
  private async joinNetwork(
    policy: SandboxPolicy,
    bwrapPath: string,
  ): Promise<{ readonly policy: SandboxPolicy; readonly prefix: readonly string[] }> {
    if (policy.network) return { policy, prefix: [] };
    const prefix = await this.sharedNetwork.enter(bwrapPath);
    return prefix === undefined ? { policy, prefix: [] } : { policy: { ...policy, network: true }, prefix };
  }

  private async seatbeltPlan(prepared: PreparedCommand, policy: SandboxPolicy): Promise<LaunchPlan> {
    const tmpDir = await this.privateTmp();
    const profile = seatbeltProfile(policy, { tmpDir });
    return {
      argv: [SANDBOX_EXEC, "-p", profile, "/bin/bash", "-c", prepared.command],
      env: { ...prepared.env, TMPDIR: tmpDir },
    };
  }
}
