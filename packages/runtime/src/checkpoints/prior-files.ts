import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A target file as it was before a change: its content and git mode, or that it did not exist. */
export type PriorFile =
  | { readonly kind: "file"; readonly path: string; readonly content: Buffer; readonly executable: boolean }
  | { readonly kind: "absent"; readonly path: string };

/**
 * Files above this size are not copied into memory: the caller takes a whole-tree snapshot
 * instead, which streams them through git.
 */
const MAX_RECORDED_BYTES = 8 * 1024 * 1024;

/**
 * Reads the present state of the files a call is about to change, as paths relative to the
 * project root (posix separators). Undefined when one of them cannot be recorded on its own, so
 * the caller must snapshot the whole tree before the call: a path through a symbolic link or a
 * nested repository, a target that is not a regular file, a file too large to hold, or a path
 * that cannot be resolved. Paths outside the project are left out, as a whole-tree snapshot
 * leaves them out. Synchronous on purpose: a handful of stat and read calls on small files cost
 * less than the thread-pool round trips of their asynchronous forms, and this is what a
 * modifying call waits for.
 */
export function readPriorFiles(
  projectRoot: string,
  realRoot: string,
  paths: readonly string[],
): PriorFile[] | undefined {
  const out = new Map<string, PriorFile>();
  for (const path of paths) {
    // `~` is expanded by the tools, not here: leave such a call to a whole-tree snapshot.
    if (path.length === 0 || path.startsWith("~") || path.includes("\0")) return undefined;
    const recorded = readOne(projectRoot, realRoot, isAbsolute(path) ? path : resolve(projectRoot, path));
    if (recorded === undefined) return undefined;
    if (recorded === "outside") continue;
    if (!out.has(recorded.path)) out.set(recorded.path, recorded);
  }
  return [...out.values()];
}

function readOne(projectRoot: string, realRoot: string, absolute: string): PriorFile | "outside" | undefined {
  try {
    const stat = lstatSync(absolute, { throwIfNoEntry: false });
    let real: string;
    if (stat !== undefined) {
      if (!stat.isFile() || stat.size > MAX_RECORDED_BYTES) return undefined;
      real = join(realpathSync(dirname(absolute)), basename(absolute));
    } else {
      // A new file: its nearest existing ancestor says where it will land.
      let ancestor = dirname(absolute);
      const rest = [basename(absolute)];
      for (;;) {
        const s = lstatSync(ancestor, { throwIfNoEntry: false });
        if (s !== undefined) {
          if (!s.isDirectory() && !s.isSymbolicLink()) return undefined;
          break;
        }
        const parent = dirname(ancestor);
        if (parent === ancestor) return undefined;
        rest.unshift(basename(ancestor));
        ancestor = parent;
      }
      real = join(realpathSync(ancestor), ...rest);
    }
    const rel = relative(realRoot, real);
    if (rel === "") return undefined;
    if (rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
      // Outside the real project. A path written inside the project that resolves elsewhere
      // goes through a link the whole-tree snapshot records as a link: not ours to record.
      const written = relative(projectRoot, absolute);
      const inside = !(written.startsWith(`..${sep}`) || written === ".." || isAbsolute(written));
      return inside ? undefined : "outside";
    }
    // A nested repository is recorded by git as a link to its commit, not as files.
    const parts = rel.split(sep);
    for (let i = 1; i < parts.length; i++) {
      if (existsSync(join(realRoot, ...parts.slice(0, i), ".git"))) return undefined;
    }
    const path = parts.join("/");
    if (stat === undefined) return { kind: "absent", path };
    return { kind: "file", path, content: readFileSync(real), executable: (stat.mode & 0o100) !== 0 };
  } catch {
    return undefined;
  }
}
