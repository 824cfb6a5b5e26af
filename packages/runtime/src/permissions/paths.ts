import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** More symlinks than this on one path is a loop (Linux stops at 40 as well). */
const MAX_LINKS = 40;

/** A path whose symlinks cannot be resolved (a loop): it is judged by no one's guess. */
export class UnresolvablePathError extends Error {
  override readonly name = "UnresolvablePathError";
  constructor(readonly path: string) {
    super(`${path} cannot be resolved: too many symbolic links`);
  }
}

/**
 * Resolves a path a tool was given (relative to `cwd`, `~` for home) to an absolute path with
 * every symlink on it resolved — also a dangling one, whose target is where a write would land —
 * so a link pointing out of the project is seen as outside. Throws UnresolvablePathError on a loop.
 */
export function canonicalPath(path: string, cwd: string): string {
  const expanded = path === "~" ? homedir() : path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
  return resolveReal(resolve(cwd, expanded), { links: 0, path });
}

function resolveReal(absolute: string, budget: { links: number; readonly path: string }): string {
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      // The system's realpath: one call, where Node's own walks the path with an lstat per part.
      const real = realpathSync.native(existing);
      return rest.length > 0 ? join(real, ...rest.reverse()) : real;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new UnresolvablePathError(budget.path);
      // realpath fails on a dangling symlink as on a missing file; lstat tells them apart, and
      // the link's target is followed as the writer would follow it.
      const target = linkTarget(existing);
      if (target !== undefined) {
        if (++budget.links > MAX_LINKS) throw new UnresolvablePathError(budget.path);
        const base = resolveReal(dirname(existing), budget);
        return resolveReal(join(resolve(base, target), ...rest.reverse()), budget);
      }
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      rest.push(existing.slice(parent.length).replace(/^[/\\]/, ""));
      existing = parent;
    }
  }
}

function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The number of hard links of a regular file, when above one: the same file then also lives
 * under another name, possibly outside the project. Undefined for anything else.
 */
export function extraHardLinks(path: string): number | undefined {
  try {
    const info = statSync(path);
    return info.isFile() && info.nlink > 1 ? info.nlink : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The directory a glob pattern can reach from `base`: the pattern's literal leading directories,
 * then one level up for every `..` after them (`../x` reaches the parent of `base`).
 */
export function globReach(pattern: string, base: string): string {
  if (isAbsolute(pattern) || pattern.startsWith("~")) base = "";
  const parts = pattern.split(/[/\\]/);
  const literal: string[] = [];
  let i = 0;
  for (; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    if (/[*?[\]{}()!+@]/.test(part)) break;
    literal.push(part === "" && i === 0 ? "/" : part);
  }
  // Every `..` past the literal part counts, inside braces too (`{..,x}/*`): over-reaching is safe.
  const ups = parts.slice(i).reduce((n, p) => n + (p.match(/\.\./g)?.length ?? 0), 0);
  const reach = join(...literal, ...Array<string>(ups).fill(".."));
  return base === "" ? reach || "." : join(base, reach);
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
