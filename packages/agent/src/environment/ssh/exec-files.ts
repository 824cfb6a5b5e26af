import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import { Readable } from "node:stream";
import type { ExecResult } from "../../types/environment.js";
import { IsADirectoryError, NotADirectoryError, PermissionDeniedError } from "../errors.js";
import type { WalkFileSystem } from "../ignore-walk.js";
import { shellQuote } from "./remote-command.js";
import { type RemoteFiles, type RemoteStats, remoteWalkFs } from "./sftp-files.js";

/** Runs a bash script on the host and gives its result (stdout kept whole). */
export type RunScript = (script: string) => Promise<ExecResult>;

// The SFTP status codes fromSftpError() maps, so both transports fail alike.
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;
const TYPE_BITS: Readonly<Record<string, number>> = { d: 0o040000, f: 0o100000, l: 0o120000 };
/** Raw bytes per write command: base64 of it stays well under one argument's 128 KiB limit. */
const WRITE_CHUNK = 48 * 1024;

/** A failed script as the error an SFTP call would have given. */
function failure(result: ExecResult, path: string): Error {
  const message = result.stderr.trim() || `exit ${result.exitCode ?? result.signal ?? "?"}`;
  const code = /No such file/i.test(message)
    ? NO_SUCH_FILE
    : /Permission denied/i.test(message)
      ? PERMISSION_DENIED
      : undefined;
  return Object.assign(new Error(`${path}: ${message}`), code !== undefined && { code });
}

/**
 * The file operations over exec (stat, find, base64, mkdir -p, mv), for hosts without an SFTP
 * subsystem: same answers and errors as SftpFiles. Needs GNU coreutils and GNU find. Scripts
 * print no NUL byte (listings are base64) and never wait: reading anything but a regular file is
 * refused, as the runner may serve nothing else meanwhile.
 */
export class ExecFiles implements RemoteFiles {
  constructor(private readonly run: RunScript) {}

  private async script(script: string, path: string): Promise<string> {
    const result = await this.run(`set -o pipefail\n${script}`);
    if (result.exitCode !== 0) throw failure(result, path);
    return result.stdout;
  }

  private async statWith(flag: string, path: string): Promise<RemoteStats> {
    const out = await this.script(`stat ${flag} -c '%f %s %Y' -- ${shellQuote(path)}`, path);
    const [mode = "0", size = "0", mtime = "0"] = out.trim().split(" ");
    return { mode: Number.parseInt(mode, 16), size: Number(size), mtime: Number(mtime) };
  }

  stat(path: string): Promise<RemoteStats> {
    return this.statWith("-L", path);
  }

  lstat(path: string): Promise<RemoteStats> {
    return this.statWith("", path);
  }

  statOrUndefined(path: string): Promise<RemoteStats | undefined> {
    return this.stat(path).catch(() => undefined);
  }

  async realpath(path: string): Promise<string> {
    const cd = path === "." ? "cd" : `cd -- ${shellQuote(path)}`;
    return (await this.script(`${cd} && pwd -P`, path)).replace(/\n$/, "");
  }

  async readdir(path: string): Promise<{ filename: string; attrs: RemoteStats }[]> {
    const out = await this.script(
      `cd -- ${shellQuote(path)} && find . -mindepth 1 -maxdepth 1 -printf '%y %s %T@ %P\\0' | base64 -w0`,
      path,
    );
    return Buffer.from(out, "base64")
      .toString("utf8")
      .split("\0")
      .filter((entry) => entry !== "")
      .map((entry) => {
        const [type = "", size = "0", mtime = "0"] = entry.split(" ", 3);
        const filename = entry.split(" ").slice(3).join(" ");
        return {
          filename,
          attrs: { mode: TYPE_BITS[type] ?? 0, size: Number(size), mtime: Math.floor(Number(mtime)) },
        };
      });
  }

  async readFile(path: string): Promise<Buffer> {
    return Buffer.from(await this.script(`${regularOnly(path)}base64 < ${shellQuote(path)}`, path), "base64");
  }

  async readHead(path: string, maxBytes: number): Promise<Buffer> {
    const n = Math.max(0, Math.floor(maxBytes));
    return Buffer.from(
      await this.script(`${regularOnly(path)}head -c ${n} < ${shellQuote(path)} | base64`, path),
      "base64",
    );
  }

  /** The whole file as a stream (reads over exec are whole). */
  readStream(path: string): AsyncIterable<Buffer> & { destroy(): unknown } {
    const stream = new Readable({ read() {} });
    this.readFile(path).then(
      (bytes) => {
        stream.push(bytes);
        stream.push(null);
      },
      (error) => stream.destroy(error),
    );
    return stream;
  }

  async unlink(path: string): Promise<void> {
    await this.script(`rm -- ${shellQuote(path)}`, path);
  }

  /**
   * Writes a temp file in the target's directory (created with its parents), in chunks, and
   * renames it over the target (mv within a directory is rename(2): atomic), keeping the file's
   * mode; through symlinks as locally.
   */
  async writeAtomic(target: string, content: string | Uint8Array, shown: string): Promise<void> {
    const bytes = Buffer.from(content);
    const name = `.attractor.${randomBytes(6).toString("hex")}.tmp`;
    // Resolves symlinks, refuses a directory, makes the parents, prints the real path and mode.
    const prepared = await this.run(
      [
        `p=${shellQuote(target)}`,
        "n=0",
        'while [ -L "$p" ]; do',
        '  t=$(readlink -- "$p") || exit 1',
        '  case $t in /*) p=$t ;; *) p=$(dirname -- "$p")/$t ;; esac',
        "  n=$((n + 1)); [ $n -gt 40 ] && { echo 'Too many levels of symbolic links' >&2; exit 1; }",
        "done",
        '[ -d "$p" ] && exit 21',
        'dir=$(dirname -- "$p")',
        'mkdir -p -- "$dir" || exit 20',
        'mode=644; [ -e "$p" ] && mode=$(stat -c %a -- "$p")',
        `: > "$dir/${name}" || exit 1`,
        'printf "%s\\n%s" "$mode" "$p"',
      ].join("\n"),
    );
    if (prepared.exitCode === 21) throw new IsADirectoryError(shown);
    if (prepared.exitCode === 20)
      throw /Not a directory|File exists/i.test(prepared.stderr)
        ? new NotADirectoryError(posix.dirname(target))
        : failure(prepared, shown);
    if (prepared.exitCode !== 0) throw mapped(failure(prepared, shown), shown);
    const [mode = "644", ...rest] = prepared.stdout.split("\n");
    const path = rest.join("\n");
    const temp = posix.join(posix.dirname(path), name);
    try {
      for (let at = 0; at < bytes.length || at === 0; at += WRITE_CHUNK) {
        const chunk = bytes.subarray(at, at + WRITE_CHUNK).toString("base64");
        await this.script(`printf '%s' '${chunk}' | base64 -d >> ${shellQuote(temp)}`, shown);
        if (bytes.length === 0) break;
      }
      await this.script(
        `chmod ${mode} -- ${shellQuote(temp)} && mv -f -- ${shellQuote(temp)} ${shellQuote(path)}`,
        shown,
      );
    } catch (error) {
      await this.run(`rm -f -- ${shellQuote(temp)}`).catch(() => {});
      throw mapped(error, shown);
    }
  }

  walkFs(): WalkFileSystem {
    return remoteWalkFs(this);
  }
}

/**
 * The start of a script that reads `path`: a FIFO, a socket or a device (which could wait forever,
 * or never end) is refused; a missing file and a directory fail as the read itself would.
 */
function regularOnly(path: string): string {
  const q = shellQuote(path);
  return `if [ -e ${q} ] && [ ! -f ${q} ] && [ ! -d ${q} ]; then echo ${shellQuote(`${path}: not a regular file`)} >&2; exit 1; fi\n`;
}

function mapped(error: unknown, shown: string): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === PERMISSION_DENIED ? new PermissionDeniedError(shown, { cause: error }) : error;
}
