import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { SymlinkOutsideProjectError } from "./errors.js";

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

/**
 * The project directories of an environment, as written and as real paths: a path written inside
 * them must really be inside them when a tool acts on it. A path written outside is left to the
 * permission layer, which judged it by its real location.
 */
export class FileBoundary {
  private readonly written: readonly string[];

  constructor(roots: readonly string[]) {
    this.written = roots.map((r) => resolve(r));
  }

  /** Whether a path, as written (absolute, not resolved), lies in a project directory. */
  writtenInside(absolute: string): boolean {
    return this.written.some((root) => inside(root, absolute) || inside(realOrSelf(root), absolute));
  }

  /** Whether a real path (symlinks resolved) lies in a project directory's real location. */
  reallyInside(real: string): boolean {
    return this.written.some((root) => inside(realOrSelf(root), real));
  }

  /**
   * Throws SymlinkOutsideProjectError when `absolute` is written inside the project but `real`
   * (where it really leads, now) is outside it.
   */
  check(absolute: string, real: string, shown: string): void {
    if (this.writtenInside(absolute) && !this.reallyInside(real))
      throw new SymlinkOutsideProjectError(shown, real);
  }

  /** check() against the path's real location now (an existing path; a missing one passes). */
  checkExisting(absolute: string, shown: string): void {
    let real: string;
    try {
      real = realpathSync.native(absolute);
    } catch {
      return;
    }
    this.check(absolute, real, shown);
  }
}
