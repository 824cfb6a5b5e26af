import { realpathSync } from "node:fs";
import * as path from "node:path";
import type { ExecutionEnvironment } from "../types/environment.js";

/**
 * The same environment with its working directory moved to a subdirectory: relative paths and
 * commands resolve there. It shares the parent's files and processes; it is a scope, not a jail.
 */
export function scopeEnvironment(parent: ExecutionEnvironment, subdir: string): ExecutionEnvironment {
  const root = path.resolve(parent.workingDirectory(), subdir);
  // Judged on real paths: a working_dir that is a symlink out of the parent's directory is outside.
  const rel = path.relative(realPath(parent.workingDirectory()), realPath(root));
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new Error(`working_dir must be inside ${parent.workingDirectory()}: ${subdir}`);
  }
  const at = (p: string) => path.resolve(root, p);
  return {
    initialize: () => parent.initialize(),
    // The parent owns the processes and resources; a scope has nothing of its own to release.
    cleanup: async () => {},
    workingDirectory: () => root,
    platform: () => parent.platform(),
    osVersion: () => parent.osVersion(),
    resolvePath: (p) => parent.resolvePath(at(p)),
    readFile: (p, o) => parent.readFile(at(p), o),
    readFileBytes: (p, o) => parent.readFileBytes(at(p), o),
    writeFile: (p, c) => parent.writeFile(at(p), c),
    deleteFile: (p) => parent.deleteFile(at(p)),
    fileExists: (p) => parent.fileExists(at(p)),
    stat: (p) => parent.stat(at(p)),
    listDirectory: (p, d) => parent.listDirectory(at(p), d),
    execCommand: (c, o) => parent.execCommand(c, { ...o, workingDir: at(o?.workingDir ?? ".") }),
    grep: (pattern, p, o) => parent.grep(pattern, at(p), o),
    glob: (pattern, p, o) => parent.glob(pattern, at(p ?? "."), o),
  };
}

/**
 * The real path of a directory on the local file system; the path itself where it does not exist
 * locally (a remote environment's), where the textual check is all there is.
 */
function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
