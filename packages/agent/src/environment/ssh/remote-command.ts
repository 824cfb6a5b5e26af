import { StringDecoder } from "node:string_decoder";
import type { ExecResult } from "../../types/environment.js";
import { BoundedOutput } from "../bounded-output.js";
import { KILL_GRACE_MS } from "../run-command.js";
import type { SshConnection } from "./connection.js";
import { helperOf } from "./remote-helper.js";
import { SftpFiles } from "./sftp-files.js";

/** How often a running command's new output is asked for, when someone listens to it. */
const STREAM_INTERVAL_MS = 100;

/** Quotes a word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

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
 * Runs `command` with bash on the remote host through the connection's helper (remote-helper.ts):
 * in the working directory, in a process group of its own that never outlives the call. Resolves
 * like a local command (never rejects for an exit status, a timeout or an abort); rejects with
 * RemoteConnectionError when the connection cannot be used or drops before the command ended.
 * Output reaches `onOutput` while the command runs: the helper is asked for what it wrote every
 * STREAM_INTERVAL_MS (a command that ends sooner costs no extra round trip), and the rest when it
 * has ended.
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
  if (options.signal?.aborted) return result(started, "", "", "", null, false, true, 0);
  const helper = await helperOf(connection);
  let timedOut = false;
  let aborted = false;
  let stopping = false;
  let pid: number | undefined;
  let exitCode: number | undefined;

  return new Promise<ExecResult>((resolve, reject) => {
    let hardClose: NodeJS.Timeout | undefined;
    let settled = false;
    // Bytes already given to onOutput while the command ran, and the decoders that carry a
    // character split across two chunks.
    let streamedOut = 0;
    let streamedErr = 0;
    const outDecoder = new StringDecoder("utf8");
    const errDecoder = new StringDecoder("utf8");
    let poll: NodeJS.Timeout | undefined;
    let peeking = false;
    let exited = false;
    const finish = () => {
      settled = true;
      clearTimeout(poll);
      clearTimeout(timer);
      clearTimeout(hardClose);
      unregister?.();
      options.signal?.removeEventListener("abort", onAbort);
    };
    const stop = () => {
      if (stopping || settled) return;
      stopping = true;
      if (pid !== undefined) helper.stop(pid);
      // A host that never answers (dead link): give up after the grace period.
      hardClose = setTimeout(() => {
        if (settled) return;
        finish();
        resolve(result(started, "", "", "", null, timedOut, aborted, 0, "SIGTERM"));
      }, KILL_GRACE_MS + 3_000);
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
    const deliver = (out: Buffer, err: Buffer) => {
      if (settled) return;
      finish();
      const limit = options.captureLimit;
      const stdout = new BoundedOutput(limit);
      const stderr = new BoundedOutput(limit);
      const combined = new BoundedOutput(limit);
      stdout.push(out);
      stderr.push(err);
      combined.push(out);
      combined.push(err);
      const outText = outDecoder.end(out.subarray(Math.min(streamedOut, out.length)));
      const errText = errDecoder.end(err.subarray(Math.min(streamedErr, err.length)));
      if (outText !== "") options.onOutput?.(outText, "stdout");
      if (errText !== "") options.onOutput?.(errText, "stderr");
      // A command we stopped reports the signal, as a local one killed by its group signal does.
      const killed = stopping && (exitCode === 143 || exitCode === 137);
      resolve(
        result(
          started,
          stdout.text(),
          stderr.text(),
          combined.text(),
          killed ? null : (exitCode ?? null),
          timedOut,
          aborted,
          Math.max(stdout.droppedBytes() + stderr.droppedBytes(), combined.droppedBytes()),
          killed ? (exitCode === 137 ? "SIGKILL" : "SIGTERM") : undefined,
        ),
      );
    };
    // Over SFTP when the host has it (no process on the host), else through the helper.
    const fetchOutput = async (id: string) => {
      const sftp = await helper.sftp();
      const files = sftp ? new SftpFiles(sftp) : undefined;
      if (files) {
        const base = `${helper.directory}/${id}`;
        try {
          const [out, err] = await Promise.all([files.readFile(`${base}.o`), files.readFile(`${base}.e`)]);
          helper.forget(id);
          void files.unlink(`${base}.o`).catch(() => {});
          void files.unlink(`${base}.e`).catch(() => {});
          deliver(out, err);
          return;
        } catch {
          // Fall back to the helper.
        }
      }
      helper.collect(id);
    };
    const schedulePeek = (id: string) => {
      if (options.onOutput === undefined || settled || exited) return;
      poll = setTimeout(() => {
        if (settled || exited || peeking) return;
        peeking = true;
        helper.peek(id, streamedOut, streamedErr);
      }, STREAM_INTERVAL_MS);
    };
    try {
      const id: string = helper.run(options.cwd, command, exports, {
        onStarted: (p) => {
          pid = p;
          if (stopping) helper.stop(p);
          schedulePeek(id);
        },
        onExit: (code) => {
          exitCode = code;
          exited = true;
          clearTimeout(poll);
          void fetchOutput(id);
        },
        onStream: (out, err) => {
          peeking = false;
          if (settled) return;
          streamedOut += out.length;
          streamedErr += err.length;
          const outText = outDecoder.write(out);
          const errText = errDecoder.write(err);
          if (outText !== "") options.onOutput?.(outText, "stdout");
          if (errText !== "") options.onOutput?.(errText, "stderr");
          schedulePeek(id);
        },
        onOutput: deliver,
        onDropped: (error) => {
          if (settled) return;
          finish();
          if (stopping) resolve(result(started, "", "", "", null, timedOut, aborted, 0, "SIGTERM"));
          else reject(error);
        },
      });
    } catch (error) {
      finish();
      reject(error);
    }
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
