import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import type { SFTPWrapper, Stats } from "ssh2";
import {
  FileNotFoundError,
  IsADirectoryError,
  NotADirectoryError,
  PermissionDeniedError,
} from "../errors.js";
import type { WalkFileSystem } from "../ignore-walk.js";

// SFTP status codes (draft-ietf-secsh-filexfer-02, section 7).
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

/** Maps an SFTP status error to the EnvironmentError for `shown`; other errors come back unchanged. */
export function fromSftpError(error: unknown, shown: string): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === NO_SUCH_FILE) return new FileNotFoundError(shown, { cause: error });
  if (code === PERMISSION_DENIED) return new PermissionDeniedError(shown, { cause: error });
  return error;
}

const call = <T>(run: (done: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value as T))));

export const isDirMode = (mode: number) => (mode & S_IFMT) === S_IFDIR;
export const isFileMode = (mode: number) => (mode & S_IFMT) === S_IFREG;
export const isLinkMode = (mode: number) => (mode & S_IFMT) === S_IFLNK;

/** What the environment needs of a file's attributes (SFTP's, in seconds). */
export interface RemoteStats {
  readonly mode: number;
  readonly size: number;
  readonly mtime: number;
}

/** The file operations the SSH environment uses, over SFTP or over exec. */
export interface RemoteFiles {
  stat(path: string): Promise<RemoteStats>;
  lstat(path: string): Promise<RemoteStats>;
  statOrUndefined(path: string): Promise<RemoteStats | undefined>;
  realpath(path: string): Promise<string>;
  readFile(path: string): Promise<Buffer>;
  readHead(path: string, maxBytes: number): Promise<Buffer>;
  readStream(path: string): AsyncIterable<Buffer> & { destroy(): unknown };
  unlink(path: string): Promise<void>;
  writeAtomic(target: string, content: string | Uint8Array, shown: string): Promise<void>;
  walkFs(): WalkFileSystem;
}

/**
 * The walk() file system over a session's listing and reading: listings carry size and mtime, and
 * a file that cannot be read is skipped (read as undefined).
 */
export function remoteWalkFs(files: {
  readdir(dir: string): Promise<readonly { filename: string; attrs: RemoteStats }[]>;
  readFile(path: string): Promise<Buffer>;
}): WalkFileSystem {
  return {
    readdir: async (dir) =>
      (await files.readdir(dir)).map(({ filename, attrs }) => ({
        name: filename,
        isDir: isDirMode(attrs.mode),
        isFile: isFileMode(attrs.mode),
        size: attrs.size,
        mtimeMs: attrs.mtime * 1000,
      })),
    readText: (path) =>
      files.readFile(path).then(
        (b) => b.toString("utf8"),
        () => undefined,
      ),
  };
}

/** The file operations of one SFTP session, as promises with the environment's errors. */
export class SftpFiles implements RemoteFiles {
  constructor(private readonly sftp: SFTPWrapper) {}

  stat(path: string): Promise<Stats> {
    return call((done) => this.sftp.stat(path, done));
  }

  lstat(path: string): Promise<Stats> {
    return call((done) => this.sftp.lstat(path, done));
  }

  /** Stat, or undefined when nothing is there. */
  async statOrUndefined(path: string): Promise<Stats | undefined> {
    return this.stat(path).catch(() => undefined);
  }

  /** The canonical absolute path (`.` is the login directory). */
  realpath(path: string): Promise<string> {
    return call((done) => this.sftp.realpath(path, done));
  }

  readdir(path: string) {
    return call<{ filename: string; attrs: Stats }[]>((done) => this.sftp.readdir(path, done));
  }

  readFile(path: string): Promise<Buffer> {
    return call((done) => this.sftp.readFile(path, done));
  }

  /** At most `maxBytes` from the start of a file. */
  async readHead(path: string, maxBytes: number): Promise<Buffer> {
    const handle = await call<Buffer>((done) => this.sftp.open(path, "r", done));
    try {
      const buffer = Buffer.alloc(maxBytes);
      let filled = 0;
      while (filled < maxBytes) {
        const read = await new Promise<number>((resolve, reject) =>
          this.sftp.read(handle, buffer, filled, maxBytes - filled, filled, (err, bytesRead) =>
            err ? reject(err) : resolve(bytesRead),
          ),
        );
        if (read === 0) break;
        filled += read;
      }
      return buffer.subarray(0, filled);
    } finally {
      await call((done) => this.sftp.close(handle, done)).catch(() => {});
    }
  }

  /** A byte stream of the file, for windowed line reads. */
  readStream(path: string) {
    return this.sftp.createReadStream(path, { highWaterMark: 64 * 1024 });
  }

  unlink(path: string): Promise<void> {
    return call((done) => this.sftp.unlink(path, done));
  }

  /** Creates a directory and its missing parents. */
  async mkdirs(path: string): Promise<void> {
    const existing = await this.statOrUndefined(path);
    if (existing) {
      if (!isDirMode(existing.mode)) throw new NotADirectoryError(path);
      return;
    }
    const parent = posix.dirname(path);
    if (parent !== path) await this.mkdirs(parent);
    await call((done) => this.sftp.mkdir(path, done)).catch(async (error) => {
      // Made meanwhile by someone else: fine.
      if (!(await this.statOrUndefined(path))) throw error;
    });
  }

  /** Where writing `path` lands: through symlinks (even a dangling one), as local writes do. */
  async throughSymlinks(path: string): Promise<string> {
    let current = path;
    for (let hops = 0; hops < 40; hops++) {
      const info = await this.lstat(current).catch(() => undefined);
      if (!info || !isLinkMode(info.mode)) return current;
      const target = await call<string>((done) => this.sftp.readlink(current, done));
      current = posix.resolve(posix.dirname(current), target);
    }
    throw Object.assign(new Error(`Too many levels of symbolic links: ${path}`), { code: "ELOOP" });
  }

  /**
   * Writes through a temp file in the same directory renamed over the target (OpenSSH's
   * posix-rename, which replaces atomically), keeping the file's mode and creating parents.
   */
  async writeAtomic(target: string, content: string | Uint8Array, shown: string): Promise<void> {
    const path = await this.throughSymlinks(target);
    const existing = await this.statOrUndefined(path);
    if (existing && isDirMode(existing.mode)) throw new IsADirectoryError(shown);
    const dir = posix.dirname(path);
    await this.mkdirs(dir);
    const temp = posix.join(dir, `.${posix.basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
    const mode = existing ? existing.mode & 0o7777 : 0o644;
    try {
      await call((done) =>
        this.sftp.writeFile(temp, Buffer.from(content), { mode, flag: "wx" }, (err) => done(err)),
      );
      await call((done) => this.sftp.chmod(temp, mode, done));
      await call((done) => this.sftp.ext_openssh_rename(temp, path, done));
    } catch (error) {
      await this.unlink(temp).catch(() => {});
      throw fromSftpError(error, shown);
    }
  }

  /** The walk() file system of this session: listings carry size and mtime. */
  walkFs(): WalkFileSystem {
    return remoteWalkFs(this);
  }
}
