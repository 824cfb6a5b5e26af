import type { ClientChannel, SFTPWrapper } from "ssh2";
import { KILL_GRACE_MS } from "../run-command.js";
import type { SshConnection } from "./connection.js";
import { RemoteConnectionError } from "./errors.js";

/**
 * A bash kept running on one exec channel for the life of the connection, so a command costs a
 * fork on the host rather than a new SSH session (whose login shell reads the user's rc files).
 *
 * Requests on stdin are NUL-separated fields: `R id cwd command exports` runs a command, `K pid`
 * stops one, `C id` sends its output back, `T id out err` sends what a running command wrote
 * past those byte offsets (`S id <stdout bytes> <stderr bytes>` and the bytes, on the same
 * channel as `D`), and `F id script` runs a short file operation (a stat, a read, a rename: the
 * files over exec of a host without SFTP) in the loop itself — no new bash, no output files —
 * answering `F id status <stdout bytes> <stderr bytes>` and the bytes. Its output may not hold a
 * NUL byte, and it must not wait on anything: nothing else is served meanwhile. Each command runs in a session (process group) of its
 * own with no stdin, stdout and stderr going to files in a private directory; the helper reports
 * `P id pid` when it started and `X id status` when it ended (after killing what it left behind,
 * as locally). `C id` answers `D id <stdout bytes> <stderr bytes>` and the bytes on the
 * channel's stderr, then deletes the files; only the main loop writes there, so frames never
 * interleave with the reports on stdout (each a single write well under PIPE_BUF). When stdin ends — the connection
 * dropped or was closed — every running group gets SIGTERM, then SIGKILL after the grace period,
 * and the directory goes.
 */
const HELPER = [
  // bash started by sshd with SHLVL below 2 reads ~/.bashrc; the login shell already did (its
  // variables are here), so commands must not pay for it again. (A forked job that execs gets
  // SHLVL one lower, so this makes the command's bash see 2.)
  "export SHLVL=2",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  'd=$(mktemp -d "${TMPDIR:-/tmp}/attractor-helper.XXXXXX") || exit 1',
  // Output frames go to the channel's stderr (fd 3), written by this loop alone; the one-line
  // reports of the background jobs go to stdout. The helper's own complaints go nowhere.
  "exec 3>&2 2>/dev/null",
  "printf 'READY %s\\n' \"$d\"",
  "field() { IFS= read -r -d '' \"$1\"; }",
  // A string's length in bytes, whatever the locale.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  "bytes() { local LC_ALL=C; n=${#1}; }",
  "while field op; do",
  '  case "$op" in',
  "  R) field id; field cwd; field cmd; field exports",
  "    (",
  '      if ! cd -- "$cwd" 2>"$d/$id.e"; then : >"$d/$id.o"; printf \'X %s 126\\n\' "$id"; exit; fi',
  '      eval "$exports"',
  // Job control puts the command in a process group of its own without another exec (setsid).
  "      set -m",
  '      bash -c "$cmd" </dev/null >"$d/$id.o" 2>"$d/$id.e" 3>&- &',
  "      pid=$!",
  '      echo "$pid" >"$d/$id.pid"',
  '      printf \'P %s %s\\n\' "$id" "$pid"',
  '      wait "$pid"; code=$?',
  '      kill -KILL -- -"$pid" 2>/dev/null',
  '      rm -f "$d/$id.pid"',
  '      printf \'X %s %s\\n\' "$id" "$code"',
  "    ) &",
  "    ;;",
  "  K) field pid",
  '    kill -TERM -- -"$pid" 2>/dev/null',
  `    ( sleep ${KILL_GRACE_MS / 1000}; kill -KILL -- -"$pid" 2>/dev/null ) &`,
  "    ;;",
  "  C) field id",
  // Empty outputs (the usual stderr) cost no process.
  '    if [ -s "$d/$id.o" ] || [ -s "$d/$id.e" ]; then',
  '      set -- $(wc -c <"$d/$id.o") $(wc -c <"$d/$id.e")',
  '      printf \'D %s %s %s\\n\' "$id" "$1" "$2" >&3',
  '      cat -- "$d/$id.o" "$d/$id.e" >&3',
  "    else printf 'D %s 0 0\\n' \"$id\" >&3; fi",
  '    rm -f -- "$d/$id.o" "$d/$id.e"',
  "    ;;",
  // What a running command wrote past the caller's offsets. The files only grow, so `head -c`
  // sends exactly the bytes counted, however much more is written meanwhile.
  "  T) field id; field oo; field eo",
  '    no=$(wc -c <"$d/$id.o") || no=0; ne=$(wc -c <"$d/$id.e") || ne=0',
  "    no=$((no > oo ? no - oo : 0)); ne=$((ne > eo ? ne - eo : 0))",
  '    printf \'S %s %s %s\\n\' "$id" "$no" "$ne" >&3',
  '    [ "$no" -gt 0 ] && tail -c +"$((oo + 1))" -- "$d/$id.o" | head -c "$no" >&3',
  '    [ "$ne" -gt 0 ] && tail -c +"$((eo + 1))" -- "$d/$id.e" | head -c "$ne" >&3',
  "    ;;",
  // The trap's "." keeps the output's trailing newlines, which $(...) would strip.
  "  F) field id; field script",
  `    out=$(trap 'printf .' EXIT; export LC_ALL=C; eval "$script" </dev/null 2>"$d/f.e" 3>&-); code=$?`,
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  "    out=${out%.}; err=",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
  '    [ -s "$d/f.e" ] && err=$(cat -- "$d/f.e"; printf .) && err=${err%.}',
  '    bytes "$out"; no=$n; bytes "$err"; ne=$n',
  '    printf \'F %s %s %s %s\\n\' "$id" "$code" "$no" "$ne" >&3',
  '    printf \'%s%s\' "$out" "$err" >&3',
  "    ;;",
  "  esac",
  "done",
  // Stdin ended. The last steps run detached from the channel, so it closes now.
  "exec </dev/null >/dev/null 2>&1",
  'set -- "$d"/*.pid',
  'if [ -e "$1" ]; then',
  '  for f do kill -TERM -- -"$(cat "$f")"; done',
  `  sleep ${KILL_GRACE_MS / 1000}`,
  '  for f do [ -e "$f" ] && kill -KILL -- -"$(cat "$f")"; done',
  "fi",
  'rm -rf -- "$d"',
].join("\n");

/** How a file operation (`F`) ended. */
export interface FileOpResult {
  readonly status: number;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

/** What the helper reports about one command. */
interface Pending {
  onStarted(pid: number): void;
  onExit(code: number): void;
  onOutput(stdout: Buffer, stderr: Buffer): void;
  /** What the command wrote past the offsets of the last `peek` (while it runs). */
  onStream?(stdout: Buffer, stderr: Buffer): void;
  onDropped(error: RemoteConnectionError): void;
}

/** One helper process on one connection; see HELPER. */
export class RemoteHelper {
  private readonly pending = new Map<string, Pending>();
  private buffer: Buffer = Buffer.alloc(0);
  private outputBuffer: Buffer = Buffer.alloc(0);
  private expecting:
    | { id: string; stdout: number; stderr: number; final: boolean; status?: number }
    | undefined;
  /** File operations (`F`) waiting for their answer. */
  private readonly fileOps = new Map<
    string,
    { resolve: (r: FileOpResult) => void; reject: (e: RemoteConnectionError) => void }
  >();
  private nextId = 0;
  private dropped: RemoteConnectionError | undefined;
  /** The connection's SFTP session, when the host has one. */
  sftp: () => Promise<SFTPWrapper | undefined> = () => Promise.resolve(undefined);
  /** The helper's private directory on the host, where command `id` writes `id.o` and `id.e`. */
  directory = "";

  private constructor(
    private readonly channel: ClientChannel,
    private readonly label: string,
  ) {}

  /** Starts a helper on `connection` and waits until it is ready. */
  static async start(connection: SshConnection): Promise<RemoteHelper> {
    const live = await connection.live();
    const { channel, closed } = await connection.exec(`exec bash -c ${shellWord(HELPER)}`);
    const helper = new RemoteHelper(channel, connection.label);
    helper.sftp = live.sftp;
    await new Promise<void>((resolve, reject) => {
      let head = "";
      const onData = (chunk: Buffer) => {
        head += chunk.toString("latin1");
        const at = head.indexOf("READY ");
        const nl = at === -1 ? -1 : head.indexOf("\n", at);
        if (nl === -1) return;
        channel.removeListener("data", onData);
        channel.removeListener("close", onClose);
        helper.directory = head.slice(at + 6, nl);
        const rest = Buffer.from(head.slice(nl + 1), "latin1");
        channel.on("data", (c: Buffer) => helper.receive(c));
        if (rest.length > 0) helper.receive(rest);
        resolve();
      };
      const onClose = () =>
        reject(
          new RemoteConnectionError(
            connection.label,
            `SSH to ${connection.label}: the command helper did not start (is bash installed on the host?)`,
          ),
        );
      channel.on("data", onData);
      channel.on("close", onClose);
    });
    channel.stderr.on("data", (c: Buffer) => helper.receiveOutput(c));
    channel.on("close", () => helper.drop());
    void closed.then(() => channel.close());
    return helper;
  }

  /** False once the channel has closed. */
  get alive(): boolean {
    return this.dropped === undefined;
  }

  /** Starts `command`; `pending` hears of it. Returns the id to stop or collect it with. */
  run(cwd: string, command: string, exports: string, pending: Pending): string {
    if (this.dropped) throw this.dropped;
    const id = String(++this.nextId);
    this.pending.set(id, pending);
    this.send(["R", id, cwd, command, exports]);
    return id;
  }

  /** Signals the process group `pid` (SIGTERM, SIGKILL after the grace period). */
  stop(pid: number): void {
    if (!this.dropped) this.send(["K", String(pid)]);
  }

  /** Asks for the output of a command that exited. */
  collect(id: string): void {
    if (!this.dropped) this.send(["C", id]);
  }

  /**
   * Runs a short file operation in the helper's loop (see HELPER): resolves with its status and
   * output; rejects with RemoteConnectionError when the channel closes first.
   */
  fileOp(script: string): Promise<FileOpResult> {
    if (this.dropped) return Promise.reject(this.dropped);
    const id = String(++this.nextId);
    return new Promise<FileOpResult>((resolve, reject) => {
      this.fileOps.set(id, { resolve, reject });
      try {
        this.send(["F", id, script]);
      } catch (error) {
        this.fileOps.delete(id);
        throw error;
      }
    });
  }

  /** Asks for what a running command wrote past these byte offsets (heard by its onStream). */
  peek(id: string, stdoutOffset: number, stderrOffset: number): void {
    if (!this.dropped) this.send(["T", id, String(stdoutOffset), String(stderrOffset)]);
  }

  /** Forgets a command whose output the caller read itself (and deleted). */
  forget(id: string): void {
    this.pending.delete(id);
  }

  /** Ends the helper: running commands are stopped on the host. */
  close(): void {
    this.channel.end();
  }

  private send(fields: readonly string[]): void {
    for (const f of fields)
      if (f.includes("\0")) throw new TypeError("A remote command cannot contain a NUL character.");
    this.channel.write(`${fields.join("\0")}\0`);
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (let nl = this.buffer.indexOf(10); nl !== -1; nl = this.buffer.indexOf(10)) {
      const line = this.buffer.subarray(0, nl).toString("utf8");
      this.buffer = this.buffer.subarray(nl + 1);
      const [kind, id = "", a = ""] = line.trim().split(/\s+/);
      if (kind === "P") this.pending.get(id)?.onStarted(Number(a));
      else if (kind === "X") this.pending.get(id)?.onExit(Number(a));
    }
  }

  /** Output frames, from the channel's stderr. */
  receiveOutput(chunk: Buffer): void {
    this.outputBuffer = this.outputBuffer.length === 0 ? chunk : Buffer.concat([this.outputBuffer, chunk]);
    for (;;) {
      if (this.expecting) {
        const { id, stdout, stderr, final, status } = this.expecting;
        if (this.outputBuffer.length < stdout + stderr) return;
        const out = Buffer.from(this.outputBuffer.subarray(0, stdout));
        const err = Buffer.from(this.outputBuffer.subarray(stdout, stdout + stderr));
        this.outputBuffer = this.outputBuffer.subarray(stdout + stderr);
        this.expecting = undefined;
        if (status !== undefined) {
          const op = this.fileOps.get(id);
          this.fileOps.delete(id);
          op?.resolve({ status, stdout: out, stderr: err });
          continue;
        }
        const p = this.pending.get(id);
        if (!final) {
          p?.onStream?.(out, err);
          continue;
        }
        this.pending.delete(id);
        p?.onOutput(out, err);
        continue;
      }
      const nl = this.outputBuffer.indexOf(10);
      if (nl === -1) return;
      const [kind, id = "", a = "", b = "", c = ""] = this.outputBuffer
        .subarray(0, nl)
        .toString("utf8")
        .split(" ");
      this.outputBuffer = this.outputBuffer.subarray(nl + 1);
      if (kind === "F")
        this.expecting = {
          id,
          stdout: Number(b) || 0,
          stderr: Number(c) || 0,
          final: true,
          status: Number(a),
        };
      else if (kind === "D" || kind === "S")
        this.expecting = { id, stdout: Number(a) || 0, stderr: Number(b) || 0, final: kind === "D" };
    }
  }

  private drop(): void {
    if (this.dropped) return;
    this.dropped = new RemoteConnectionError(
      this.label,
      `The SSH connection to ${this.label} dropped while the command ran; it was stopped on the host.`,
    );
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.onDropped(this.dropped);
    const ops = [...this.fileOps.values()];
    this.fileOps.clear();
    for (const op of ops) op.reject(this.dropped);
  }
}

const helpers = new WeakMap<SshConnection, Promise<RemoteHelper>>();

/** The helper of `connection`, started on first use and again after the last one's channel closed. */
export async function helperOf(connection: SshConnection): Promise<RemoteHelper> {
  for (;;) {
    const existing = helpers.get(connection);
    if (existing === undefined) {
      const starting = RemoteHelper.start(connection);
      helpers.set(connection, starting);
      starting.catch(() => {
        if (helpers.get(connection) === starting) helpers.delete(connection);
      });
      return starting;
    }
    const helper = await existing.catch(() => undefined);
    if (helper?.alive) return helper;
    if (helpers.get(connection) === existing) helpers.delete(connection);
  }
}

function shellWord(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}
