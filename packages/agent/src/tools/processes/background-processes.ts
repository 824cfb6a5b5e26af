import type {
  BackgroundProcessInfo,
  BackgroundProcessTable,
  BackgroundRead,
  BackgroundStartOptions,
} from "../../types/background-process.js";
import type { ExecutionEnvironment, LongLivedProcess } from "../../types/environment.js";
import { ToolError } from "../shared/tool-errors.js";
import { descendants, signalAll } from "./process-tree.js";

/** Output kept per process between reads; the oldest is dropped past it. */
const MAX_PENDING_CHARS = 1_000_000;
const KILL_GRACE_MS = 2_000;

interface Entry {
  readonly id: string;
  readonly command: string;
  readonly tty: boolean;
  readonly startedAt: number;
  readonly process: LongLivedProcess;
  pending: string;
  dropped: number;
  exit: { exitCode: number | null; signal: string | null } | undefined;
  /** Wakes readers waiting for output or the exit. */
  readonly waiters: Set<() => void>;
}

/** An environment that can start the long-lived program itself, inside its sandbox. */
interface SandboxStarter {
  startSandboxedProcess(
    command: string,
    args: readonly string[],
    options?: { workingDir?: string },
  ): Promise<LongLivedProcess>;
}

const canSandbox = (env: ExecutionEnvironment): env is ExecutionEnvironment & SandboxStarter =>
  typeof (env as Partial<SandboxStarter>).startSandboxedProcess === "function";

/**
 * The commands a session runs in the background: started through the session's environment (in
 * its sandbox when it has one), read incrementally, written to, stopped with everything they
 * started; stopAll() ends them when the session ends. A process group per command; programs
 * under a pseudo-terminal are stopped by their process tree as well.
 */
export class BackgroundProcesses implements BackgroundProcessTable {
  private readonly entries = new Map<string, Entry>();
  private next = 1;

  /** Starts `command` with bash (under script(1) for a pseudo-terminal); resolves once it has spawned. */
  async start(
    env: ExecutionEnvironment,
    command: string,
    options: BackgroundStartOptions = {},
  ): Promise<BackgroundProcessInfo> {
    const tty = options.tty === true;
    // script(1) from util-linux gives the command a pseudo-terminal without a native module: -q no
    // banner, -f flush as it comes, -e its exit status, -c the command; no typescript file kept.
    const [program, args] = tty
      ? (["script", ["-qfec", command, "/dev/null"]] as const)
      : (["/bin/bash", ["-c", command]] as const);
    // script(1) runs the command with $SHELL, or /bin/sh when it is unset (as under CI or a
    // service): the command is bash either way, so `exec -a`, arrays and [[ ]] work on a terminal too.
    const startOptions = {
      ...(options.workingDir !== undefined && { workingDir: options.workingDir }),
      ...(tty && { env: { SHELL: "/bin/bash" } }),
    };
    let child: LongLivedProcess;
    if (canSandbox(env)) child = await env.startSandboxedProcess(program, args, startOptions);
    else if (env.startProcess) child = await env.startProcess(program, args, startOptions);
    else
      throw new ToolError(
        "background_unavailable",
        "This environment cannot run commands in the background; run the command in the foreground instead.",
      );
    const id = `bg${this.next++}`;
    const entry: Entry = {
      id,
      command,
      tty,
      startedAt: Date.now(),
      process: child,
      pending: "",
      dropped: 0,
      exit: undefined,
      waiters: new Set(),
    };
    const wake = () => {
      for (const w of [...entry.waiters]) w();
    };
    const take = (chunk: Buffer | string) => {
      // A terminal ends lines with CR LF; the model reads plain lines.
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      entry.pending += tty ? text.replace(/\r\n/g, "\n") : text;
      if (entry.pending.length > MAX_PENDING_CHARS) {
        const cut = entry.pending.length - MAX_PENDING_CHARS;
        entry.dropped += cut;
        entry.pending = entry.pending.slice(cut);
      }
      wake();
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    void child.exited.then((exit) => {
      entry.exit = exit;
      wake();
    });
    this.entries.set(id, entry);
    return this.info(entry);
  }

  /** Every process started, running or not, oldest first. */
  list(): BackgroundProcessInfo[] {
    return [...this.entries.values()].map((e) => this.info(e));
  }

  /** How many still run. */
  runningCount(): number {
    return [...this.entries.values()].filter((e) => e.exit === undefined).length;
  }

  /**
   * What the process printed since the last read. With `waitMs`, waits up to that long for
   * output to arrive and settle (or the process to exit) first. `filter` keeps only the lines
   * matching it (the others are consumed). Throws ToolError for an unknown id.
   */
  async read(
    id: string,
    options: { waitMs?: number; filter?: RegExp; signal?: AbortSignal } = {},
  ): Promise<BackgroundRead> {
    const entry = this.get(id);
    if ((options.waitMs ?? 0) > 0) await this.settle(entry, options.waitMs as number, options.signal);
    let output = entry.pending;
    entry.pending = "";
    const dropped = entry.dropped;
    entry.dropped = 0;
    if (options.filter) {
      const filter = options.filter;
      output = output
        .split("\n")
        .filter((line) => filter.test(line))
        .join("\n");
    }
    return { info: this.info(entry), output, droppedChars: dropped };
  }

  /** Writes text to the process's standard input. Throws ToolError when it has exited. */
  async write(id: string, text: string): Promise<void> {
    const entry = this.get(id);
    if (entry.exit !== undefined)
      throw new ToolError("process_exited", `Process ${id} has exited; its input is closed.`);
    await new Promise<void>((resolve, reject) =>
      entry.process.stdin.write(text, (err) => (err ? reject(err) : resolve())),
    ).catch((err: Error) => {
      throw new ToolError("process_exited", `Could not write to ${id}: ${err.message}`);
    });
  }

  /** Stops a process and everything it started; resolves once it has exited. */
  async stop(id: string): Promise<BackgroundProcessInfo> {
    const entry = this.get(id);
    await this.end(entry);
    return this.info(entry);
  }

  /** Stops every process still running (the session is ending); resolves once all have exited. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => this.end(e)));
  }

  private async end(entry: Entry): Promise<void> {
    if (entry.exit !== undefined) return;
    const pid = entry.process.pid;
    // Collected before the group is signalled: once the starter dies its children are orphans
    // whose parent is no longer the starter.
    const tree = pid !== undefined ? descendants(pid) : [];
    entry.process.kill();
    signalAll(tree, "SIGTERM");
    const timer = setTimeout(
      () => signalAll([...tree, ...(pid !== undefined ? descendants(pid) : [])], "SIGKILL"),
      KILL_GRACE_MS,
    );
    await entry.process.exited;
    clearTimeout(timer);
    // Whatever of the tree outlived the starter's exit.
    signalAll(tree, "SIGKILL");
  }

  private get(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) {
      const known = [...this.entries.keys()];
      throw new ToolError(
        "unknown_process",
        `No background process ${JSON.stringify(id)}.${known.length > 0 ? ` Known: ${known.join(", ")}.` : " None was started."}`,
      );
    }
    return entry;
  }

  /** Waits until output has arrived and then been quiet a moment, the process exits, or maxMs passes. */
  private settle(entry: Entry, maxMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(overall);
        clearTimeout(quiet);
        entry.waiters.delete(onChange);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const onChange = () => {
        if (entry.exit !== undefined) return done();
        clearTimeout(quiet);
        quiet = setTimeout(done, 150);
      };
      const overall = setTimeout(done, maxMs);
      if (entry.exit !== undefined || signal?.aborted) return done();
      entry.waiters.add(onChange);
      signal?.addEventListener("abort", done, { once: true });
      if (entry.pending.length > 0) onChange();
    });
  }

  private info(e: Entry): BackgroundProcessInfo {
    return {
      id: e.id,
      command: e.command,
      pid: e.process.pid,
      tty: e.tty,
      startedAt: e.startedAt,
      running: e.exit === undefined,
      exitCode: e.exit?.exitCode ?? null,
      signal: e.exit?.signal ?? null,
    };
  }
}
