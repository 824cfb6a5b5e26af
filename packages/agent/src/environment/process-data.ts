import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { ProcessDataError } from "./errors.js";

/**
 * Per-process folders of /proc (`self`, `thread-self`, any pid) and the names that lead into
 * them (`/dev/fd`, `/dev/stdin`…): a process's environment, memory, open files and command line.
 * The agent's own hold its API keys, its parent's the user's; other processes of the same user
 * hold theirs. No file tool has a reason to read them.
 */
const PROCESS_DATA = /^\/proc\/(?:self|thread-self|\d+)(?:\/|$)|^\/dev\/(?:fd|stdin|stdout|stderr)(?:\/|$)/;

/** Whether an absolute path (as written, no symlink followed) names process data. */
function namesProcessData(absolute: string): boolean {
  return PROCESS_DATA.test(sep === "/" ? absolute : absolute.split(sep).join("/"));
}

/** Most symlinks followed before giving up (Linux stops at 40 as well). */
const MAX_LINKS = 40;

/**
 * Whether reading `absolute` reaches process data: as written, or through a symlink on the way
 * (a project link to /proc/self/environ, a folder link to /proc/self). Each symlink met is read
 * and its target judged before it is followed; /proc's own links (`fd/3`) are never followed.
 */
function reachesProcessData(absolute: string): boolean {
  if (process.platform !== "linux") return false;
  let pending = resolve(absolute);
  if (namesProcessData(pending)) return true;
  // One system call settles the usual case: a path with no symlink on it (its real path is
  // itself) was judged by its name above. A missing path is walked, as a dangling link may be on it.
  try {
    if (realpathSync.native(pending) === pending) return false;
  } catch {
    // Walked below.
  }
  for (let links = 0; links <= MAX_LINKS; links++) {
    if (namesProcessData(pending)) return true;
    const target = firstLink(pending);
    if (target === undefined) return false;
    pending = target;
  }
  // A loop: the read fails with ELOOP anyway.
  return false;
}

/**
 * The path with its first symlink replaced by the link's target (the rest appended), or
 * undefined when no component of it is a symlink.
 */
function firstLink(path: string): string | undefined {
  const parts = path.split("/").filter((p) => p !== "");
  let current = "/";
  for (let i = 0; i < parts.length; i++) {
    const next = join(current, parts[i] as string);
    let link: string | undefined;
    try {
      link = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      return undefined;
    }
    if (link !== undefined) {
      const target = isAbsolute(link) ? link : resolve(dirname(next), link);
      return join(target, ...parts.slice(i + 1));
    }
    current = next;
  }
  return undefined;
}

/** Throws ProcessDataError when reading `absolute` would reach process data (see reachesProcessData). */
export function refuseProcessData(absolute: string, shown: string): void {
  if (reachesProcessData(absolute)) throw new ProcessDataError(shown);
}

/** Whether a search from this folder would walk into /proc (it is / or /proc itself). */
export function coversProcessData(absolute: string): boolean {
  if (process.platform !== "linux") return false;
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    real = resolve(absolute);
  }
  return real === "/" || real === "/proc";
}
