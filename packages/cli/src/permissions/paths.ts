import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * Resolves a path a tool was given (relative to `cwd`, `~` for home) to an absolute path with
 * symlinks of its existing part resolved, so a link pointing out of the project is seen as outside.
 */
export function canonicalPath(path: string, cwd: string): string {
  const expanded = path === "~" ? homedir() : path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
  const absolute = resolve(cwd, expanded);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(existing);
      return rest.length > 0 ? join(real, ...rest.reverse()) : real;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      rest.push(existing.slice(parent.length).replace(/^[/\\]/, ""));
      existing = parent;
    }
  }
}

/** True when `path` (absolute, canonical) is `root` or inside it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The posix form of `path` relative to `root`, or the absolute path when outside it. */
export function displayPath(root: string, path: string): string {
  return isInside(root, path) ? relative(root, path).split(sep).join("/") || "." : path.split(sep).join("/");
}
