import { PassThrough } from "node:stream";
import type { LongLivedProcess } from "../../types/environment.js";
import { CommandError } from "../errors.js";
import { KILL_GRACE_MS } from "../run-command.js";
import type { SshConnection } from "./connection.js";
import { shellQuote } from "./remote-command.js";
import { helperOf } from "./remote-helper.js";

export interface RemoteProcessOptions {
  readonly cwd: string;
  /** Variables exported before the program starts. */
  readonly env: Readonly<Record<string, string>>;
  /** Called with a stopper while the program runs (for cleanup()); returns the unregister function. */
  readonly register?: (stop: () => Promise<void>) => () => void;
}

/** Brackets what the start-up script reports on stderr before the program's own output. */
const MARK = "\u001e";

/**
 * Starts `program` on the host over an exec channel of its own, its three streams piped through
 * the channel. sshd makes the command a session (and process group) leader, and the script
 * reports its pid before it starts the program, so kill() can stop the whole group from a second
 * channel: SIGTERM, then SIGKILL after KILL_GRACE_MS; a dropped connection has the helper stop it. Resolves once the program runs; rejects
 * with CommandError when the directory or the program is missing. `pid` stays undefined: the
 * number is the host's, and nothing local may be signalled by it.
 */
export async function startRemoteProcess(
  connection: SshConnection,
  program: string,
  args: readonly string[],
  options: RemoteProcessOptions,
): Promise<LongLivedProcess> {
  const exports = Object.entries(options.env)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  // The group's id goes into the connection helper's directory while the program runs: when the
  // connection drops, the helper stops every group named there (remote-helper.ts), this one too.
  const helper = await helperOf(connection);
  const pidFile = `${helper.directory}/bg.$$.pid`;
  const script = [
    `cd ${shellQuote(options.cwd)} 2>/dev/null || { printf '${MARK}nodir${MARK}' >&2; exit 126; }`,
    ...exports,
    `command -v ${shellQuote(program)} >/dev/null 2>&1 || { printf '${MARK}missing${MARK}' >&2; exit 127; }`,
    `f="${pidFile}"; printf '%s\n' "$$" >"$f"`,
    `printf '${MARK}%s${MARK}' "$$" >&2`,
    // A child rather than exec, so the file goes when it ends; its stdin is the channel's.
    `${[program, ...args].map(shellQuote).join(" ")} <&0 &`,
    'wait "$!"; code=$?; rm -f "$f"; exit "$code"',
  ].join("\n");
  const { channel } = await connection.exec(script);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let pid: number | undefined;
  let head = "";
  let exit: { exitCode: number | null; signal: string | null } | undefined;

  return new Promise<LongLivedProcess>((resolve, reject) => {
    let started = false;
    const fail = (reason: string) => {
      if (started) return;
      started = true;
      reject(new CommandError(program, `Could not start ${program} on ${connection.label}: ${reason}`));
    };
    channel.on("data", (chunk: Buffer) => stdout.write(chunk));
    channel.stderr.on("data", (chunk: Buffer) => {
      if (started && pid !== undefined) {
        stderr.write(chunk);
        return;
      }
      head += chunk.toString("latin1");
      const match = new RegExp(`^${MARK}([^${MARK}]*)${MARK}`).exec(head);
      if (match === null) return;
      const said = match[1] ?? "";
      const rest = Buffer.from(head.slice(match[0].length), "latin1");
      if (said === "nodir") return fail(`no directory ${options.cwd}`);
      if (said === "missing") return fail("not found on the host");
      pid = Number(said);
      started = true;
      if (rest.length > 0) stderr.write(rest);
      resolve(remote);
    });
    channel.on("exit", (code: number | null, signal?: string) => {
      const name = signal ? (signal.startsWith("SIG") ? signal : `SIG${signal}`) : null;
      exit = { exitCode: typeof code === "number" ? code : null, signal: name };
    });
    const exited = new Promise<{ exitCode: number | null; signal: string | null }>((done) => {
      channel.on("close", () => {
        unregister?.();
        stdout.end();
        stderr.end();
        fail("the command ended before it started");
        done(exit ?? { exitCode: null, signal: null });
      });
    });
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        if (pid === undefined) {
          channel.close();
          return;
        }
        const group = `-${pid}`;
        const steps = Math.ceil(KILL_GRACE_MS / 100);
        const kill =
          `kill -TERM -- ${group} 2>/dev/null; i=0; ` +
          `while [ $i -lt ${steps} ] && kill -0 -- ${group} 2>/dev/null; do sleep 0.1; i=$((i+1)); done; ` +
          `kill -KILL -- ${group} 2>/dev/null; exit 0`;
        try {
          const killer = await connection.exec(kill);
          // A channel closes only once its streams are read to their end.
          killer.channel.resume();
          killer.channel.stderr.resume();
          await new Promise<void>((done) => killer.channel.on("close", () => done()));
        } catch {
          // The connection is gone: closing the channel is all that is left to do.
        }
        // The group is dead; a channel the host keeps open past that is closed from here.
        const timer = setTimeout(() => channel.close(), 1_000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    };
    const unregister = options.register?.(stop);
    const remote: LongLivedProcess = {
      pid: undefined,
      stdin: channel,
      stdout,
      stderr,
      exited,
      kill: () => void stop(),
    };
  });
}
