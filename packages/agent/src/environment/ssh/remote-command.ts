import { StringDecoder } from "node:string_decoder";
import type { ExecResult } from "../../types/environment.js";
import { BoundedOutput } from "../bounded-output.js";
import { KILL_GRACE_MS } from "../run-command.js";
import type { SshConnection } from "./connection.js";
import { RemoteConnectionError } from "./errors.js";

/** Quotes a word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Runs on the remote host around every command. The command gets a session (and process group)
 * of its own and no stdin; a watcher reads the channel's stdin, and when it ends — the call was
 * stopped, or the connection dropped — the whole group gets SIGTERM, then SIGKILL after the grace
 * period. When the command exits on its own, what it left in the background is killed too, as
 * locally. The exit status is the command's. (Background jobs of a shell without job control read
 * /dev/null, so the watcher reads the channel through a duplicate of stdin.)
 */
const WRAPPER = [
  'cd -- "$1" || exit 126',
  'eval "$3"',
  "exec 3<&0",
  'setsid bash -c "$2" </dev/null &',
  "pid=$!",
  `{ IFS= read -r _ <&3; kill -TERM -- -"$pid" 2>/dev/null; sleep ${KILL_GRACE_MS / 1000}; kill -KILL -- -"$pid" 2>/dev/null; } &`,
  "watcher=$!",
  'wait "$pid"; code=$?',
  'kill -KILL -- -"$pid" 2>/dev/null',
  'kill "$watcher" 2>/dev/null',
  'exit "$code"',
].join("\n");

export interface RemoteCommandOptions {
  readonly cwd: string;
  /** Variables exported before the command runs. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly captureLimit: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Called with a stopper while the command runs (for cleanup()). */
  readonly register?: (stop: () => void) => () => void;
}

/**
 * Runs `command` with bash on the remote host through the wrapper. Resolves like a local command
 * (never rejects for an exit status, a timeout or an abort); rejects with RemoteConnectionError
 * when the connection cannot be used or drops before the command ended.
 */
export async function runRemoteCommand(
  connection: SshConnection,
  command: string,
  options: RemoteCommandOptions,
): Promise<ExecResult> {
  const started = performance.now();
  const exports = Object.entries(options.env)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}=${shellQuote(value)}`)
    .join("\n");
  const line = `bash -c ${shellQuote(WRAPPER)} attractor ${shellQuote(options.cwd)} ${shellQuote(command)} ${shellQuote(exports)}`;
  if (options.signal?.aborted) return result(started, "", "", "", null, false, true, 0);
  const { channel, closed } = await connection.exec(line);
  const limit = options.captureLimit;
  const stdout = new BoundedOutput(limit);
  const stderr = new BoundedOutput(limit);
  const combined = new BoundedOutput(limit);
  let timedOut = false;
  let aborted = false;
  let stopping = false;
  let exit: { code: number | null; signal?: string } | undefined;

  return new Promise<ExecResult>((resolve, reject) => {
    let hardClose: NodeJS.Timeout | undefined;
    // Ending our side of stdin is what tells the remote watcher to stop the command.
    const stop = () => {
      if (stopping) return;
      stopping = true;
      channel.end();
      // A host that never answers (dead link): give up on the channel after the grace period.
      hardClose = setTimeout(() => channel.close(), KILL_GRACE_MS + 3_000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const unregister = options.register?.(() => {
      aborted = true;
      stop();
    });
    const wire = (stream: NodeJS.ReadableStream, own: BoundedOutput, name: "stdout" | "stderr") => {
      const decoder = new StringDecoder("utf8");
      stream.on("data", (chunk: Buffer) => {
        own.push(chunk);
        const text = decoder.write(chunk);
        if (text === "") return;
        combined.push(Buffer.from(text));
        options.onOutput?.(text, name);
      });
    };
    wire(channel, stdout, "stdout");
    wire(channel.stderr, stderr, "stderr");
    channel.on("exit", (code: number | null, signal?: string) => {
      exit = { code, ...(signal !== undefined && { signal }) };
    });
    channel.on("close", () => {
      clearTimeout(timer);
      clearTimeout(hardClose);
      unregister?.();
      options.signal?.removeEventListener("abort", onAbort);
      if (exit === undefined && !stopping) {
        reject(
          new RemoteConnectionError(
            connection.label,
            `The SSH connection to ${connection.label} dropped while the command ran; it was stopped on the host. Output so far:\n${combined.text()}`,
          ),
        );
        return;
      }
      // A command we stopped reports the signal, as a local one killed by its group signal does.
      const killed = stopping && (exit?.code === 143 || exit?.code === 137 || exit === undefined);
      resolve(
        result(
          started,
          stdout.text(),
          stderr.text(),
          combined.text(),
          killed ? null : (exit?.code ?? null),
          timedOut,
          aborted,
          Math.max(stdout.droppedBytes() + stderr.droppedBytes(), combined.droppedBytes()),
          killed ? (exit?.code === 137 ? "SIGKILL" : "SIGTERM") : exit?.signal,
        ),
      );
    });
    // The connection dropping closes the channel too; this only makes sure of it.
    void closed.then(() => channel.close());
  });
}

function result(
  started: number,
  stdout: string,
  stderr: string,
  output: string,
  exitCode: number | null,
  timedOut: boolean,
  aborted: boolean,
  droppedBytes: number,
  signal?: string,
): ExecResult {
  return {
    stdout,
    stderr,
    output,
    exitCode,
    ...(signal !== undefined && { signal }),
    timedOut,
    aborted,
    durationMs: Math.round(performance.now() - started),
    droppedBytes,
  };
}
