import { randomBytes } from "node:crypto";
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from "node:fs";
import {
  chmod,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
} from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/**
 * Files up to this size are read in one go, synchronously: four system calls on the page cache
 * take microseconds, where the same work through the thread pool takes a wake-up per call.
 */
export const SMALL_FILE_BYTES = 256 * 1024;

/**
 * The whole content of a regular file of at most SMALL_FILE_BYTES, read synchronously with one
 * open; undefined when the file is larger (the caller streams it). A directory throws EISDIR, a
 * missing file ENOENT, as an asynchronous read would.
 */
export function readSmallFile(path: string): Buffer | undefined {
  // Non-blocking, so opening a FIFO with no writer returns at once instead of hanging the loop.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) {
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), {
        code: "EISDIR",
        path,
      });
    }
    // Only regular files have a size to trust; a FIFO or a device is streamed.
    if (!info.isFile() || info.size > SMALL_FILE_BYTES) return undefined;
    // One byte more than the size tells a file that grew meanwhile, which is then streamed.
    const buf = Buffer.allocUnsafe(info.size + 1);
    let filled = 0;
    for (;;) {
      const n = readSync(fd, buf, filled, buf.length - filled, filled);
      if (n === 0) break;
      filled += n;
      if (filled === buf.length) return undefined;
    }
    return buf.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole file as UTF-8. */
export function readWhole(path: string): Promise<string> {
  return readFile(path, "utf8");
}

/** Reads at most maxBytes from the start of a file. */
export async function readBytes(path: string, maxBytes: number | undefined): Promise<Uint8Array> {
  if (maxBytes === undefined) return new Uint8Array(await readFile(path));
  const handle = await open(path, "r");
  try {
    const buf = Buffer.alloc(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const { bytesRead } = await handle.read(buf, filled, maxBytes - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, filled);
  } finally {
    await handle.close();
  }
}

/**
 * Where writing `path` really lands: a symlink's target (even a missing one), so that replacing
 * the file keeps the link instead of turning it into a regular file.
 */
async function throughSymlinks(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    const info = await lstat(current).catch(() => undefined);
    if (!info?.isSymbolicLink()) return current;
    // Replaced by a plain file since the lstat (EINVAL) or gone: written as it is now.
    const link = await readlink(current).catch(() => undefined);
    if (link === undefined) return current;
    current = resolve(dirname(current), link);
  }
  throw Object.assign(new Error(`Too many levels of symbolic links: ${path}`), { code: "ELOOP" });
}

/**
 * Checks the real path of the folder a write is about to happen in; throws to refuse the write.
 * Called with the folder as opened, so a symlink swapped into the path after any earlier check
 * is seen.
 */
export type WriteFolderCheck = (realFolder: string) => void;

/** Open folders are reachable by name through here, which makes paths below them act like openat(2). */
const FD_DIR = "/proc/self/fd";
let openAt: boolean | undefined;
function canOpenAt(): boolean {
  openAt ??= process.platform === "linux" && existsSync(FD_DIR);
  return openAt;
}

/**
 * Opens the folder `dir`, creating what is missing of it: the deepest existing ancestor is opened
 * (following symlinks) and its real path checked, then each missing folder is made and opened
 * through the open one's descriptor, without following a symlink, so no later swap of a
 * component moves the write elsewhere.
 */
async function openFolder(dir: string, check: WriteFolderCheck | undefined): Promise<FileHandle> {
  const missing: string[] = [];
  let base = dir;
  for (;;) {
    try {
      await stat(base);
      break;
    } catch (err) {
      const parent = dirname(base);
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || parent === base) throw err;
      missing.unshift(basename(base));
      base = parent;
    }
  }
  let handle = await open(base, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    check?.(await readlink(`${FD_DIR}/${handle.fd}`));
    for (const name of missing) {
      const at = `${FD_DIR}/${handle.fd}/${name}`;
      await mkdir(at).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "EEXIST") throw err;
      });
      const next = await open(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      await handle.close();
      handle = next;
    }
    return handle;
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

/**
 * Writes through a temp file in the same directory and renames it over the target, so readers
 * see the old or the new content and never a half-written file. Keeps an existing file's mode,
 * writes through symlinks, and creates missing parent directories. `check` sees the real path of
 * the folder written in, as opened: on Linux the temp file is created and renamed through that
 * open folder, so a symlink swapped into the path after the check cannot move the write.
 */
export async function writeAtomic(
  target: string,
  content: string | Uint8Array,
  check?: WriteFolderCheck,
): Promise<void> {
  const path = await throughSymlinks(target);
  if (!canOpenAt()) return writeAtomicByPath(path, content, check);
  const folder = await openFolder(dirname(path), check);
  const at = `${FD_DIR}/${folder.fd}`;
  const name = basename(path);
  const temp = `${at}/.${name}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const mode = await stat(`${at}/${name}`).then(
      (s) => s.mode & 0o7777,
      () => undefined,
    );
    try {
      const handle = await open(
        temp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        mode ?? 0o666,
      );
      try {
        await handle.writeFile(content);
        await handle.sync();
        // open() applies the umask; restore the exact mode of the file being replaced.
        if (mode !== undefined) await handle.chmod(mode);
      } finally {
        await handle.close();
      }
      await rename(temp, `${at}/${name}`);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  } finally {
    await folder.close();
  }
}

/** writeAtomic where folders cannot be reached through a descriptor: checked by real path, then written by name. */
async function writeAtomicByPath(
  path: string,
  content: string | Uint8Array,
  check: WriteFolderCheck | undefined,
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  check?.(await realpath(dir));
  const mode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  );
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * Deletes a file (not a folder: EISDIR) the way writeAtomic writes: through its folder opened
 * once and checked, so a folder swapped for a symlink after the check cannot make the delete
 * remove a file elsewhere. A symlink is deleted itself, not its target.
 */
export async function removeFile(target: string, check?: WriteFolderCheck): Promise<void> {
  const dir = dirname(target);
  const name = basename(target);
  if (!canOpenAt()) {
    check?.(await realpath(dir));
    if ((await lstat(target)).isDirectory()) throw directoryError(target);
    await rm(target);
    return;
  }
  const folder = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    check?.(await readlink(`${FD_DIR}/${folder.fd}`));
    const at = `${FD_DIR}/${folder.fd}/${name}`;
    if ((await lstat(at)).isDirectory()) throw directoryError(target);
    await rm(at);
  } finally {
    await folder.close();
  }
}

function directoryError(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EISDIR: illegal operation on a directory, unlink '${path}'`), {
    code: "EISDIR",
    path,
  });
}
