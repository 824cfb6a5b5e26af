import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { ExecutionEnvironment, StartProcessOptions } from "../types/environment.js";
import { PathOutsideRootError } from "./errors.js";

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The real location of a path that may not exist yet: the deepest existing ancestor is resolved
 * through its symlinks and the missing remainder appended, so a new file under a symlinked
 * directory is judged by where it would really land.
 */
function realLocation(path: string): string | undefined {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      lstatSync(current);
      break;
    } catch {
      const parent = dirname(current);
      if (parent === current) break;
      missing.unshift(basename(current));
      current = parent;
    }
  }
  let real: string;
  try {
    // The system's realpath: one call, where Node's own walks the path with an lstat per part.
    real = realpathSync.native(current);
  } catch {
    // A dangling symlink or a loop: where it leads cannot be judged, so it is refused.
    return undefined;
  }
  return missing.length === 0 ? real : join(real, ...missing);
}

/**
 * Resolves a path against the working directory and checks that it, and wherever its symlinks
 * lead, stays under root; throws PathOutsideRootError otherwise.
 */
export function confinePath(root: string, workingDirectory: string, path: string): string {
  const abs = resolve(workingDirectory, path);
  const realRoot = realLocation(root) ?? root;
  if (!inside(root, abs) && !inside(realRoot, abs)) throw new PathOutsideRootError(path, root);
  const real = realLocation(abs);
  if (real === undefined || !inside(realRoot, real)) throw new PathOutsideRootError(path, root);
  return abs;
}

/**
 * The same environment with every path confined to a root (the working directory by default):
 * `..`, absolute paths elsewhere, and symlinks leading out (files, parent directories, new files
 * under a symlinked directory) are rejected with PathOutsideRootError. Commands run inside the
 * root but are not sandboxed: a command can still reach outside; use an OS sandbox for that.
 */
export function confinedEnvironment(inner: ExecutionEnvironment, root?: string): ExecutionEnvironment {
  const base = resolve(root ?? inner.workingDirectory());
  const at = (p: string): string => confinePath(base, inner.workingDirectory(), p);
  return {
    initialize: () => inner.initialize(),
    cleanup: () => inner.cleanup(),
    workingDirectory: () => inner.workingDirectory(),
    platform: () => inner.platform(),
    osVersion: () => inner.osVersion(),
    resolvePath: (p) => at(p),
    readFile: async (p, o) => inner.readFile(at(p), o),
    readFileBytes: async (p, o) => inner.readFileBytes(at(p), o),
    writeFile: async (p, c) => inner.writeFile(at(p), c),
    deleteFile: async (p) => inner.deleteFile(at(p)),
    fileExists: async (p) => inner.fileExists(at(p)),
    stat: async (p) => inner.stat(at(p)),
    listDirectory: async (p, d) => inner.listDirectory(at(p), d),
    execCommand: async (c, o) => inner.execCommand(c, { ...o, workingDir: at(o?.workingDir ?? ".") }),
    grep: async (pattern, p, o) => inner.grep(pattern, at(p), o),
    glob: async (pattern, p, o) => inner.glob(pattern, at(p ?? "."), o),
    ...(inner.startProcess && {
      startProcess: async (c: string, a: readonly string[], o?: StartProcessOptions) =>
        inner.startProcess!(c, a, { ...o, workingDir: at(o?.workingDir ?? ".") }),
    }),
  };
}
