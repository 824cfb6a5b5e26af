import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/** Ignore files honoured in every directory, as ripgrep does (with --no-require-git). */
const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;
const IGNORE_NAMES: ReadonlySet<string> = new Set(IGNORE_FILES);

interface Matcher {
  /** Absolute directory the rules are relative to. */
  readonly base: string;
  readonly rules: Ignore;
}

/** One directory entry as a WalkFileSystem reports it. */
export interface WalkDirent {
  readonly name: string;
  readonly isDir: boolean;
  readonly isFile: boolean;
  /** Known without another call on some file systems (SFTP listings carry them). */
  readonly size?: number;
  readonly mtimeMs?: number;
}

/** The two operations walk() needs, so a remote file system can be walked the same way. */
export interface WalkFileSystem {
  /** The entries of a directory; rejects when it cannot be read. */
  readdir(dir: string): Promise<readonly WalkDirent[]>;
  /** A file's text, or undefined when it cannot be read. */
  readText(path: string): Promise<string | undefined>;
}

/** The local file system. */
const LOCAL_FS: WalkFileSystem = {
  readdir: async (dir) =>
    (await readdir(dir, { withFileTypes: true })).map((d: Dirent) => ({
      name: d.name,
      isDir: d.isDirectory(),
      isFile: d.isFile(),
    })),
  readText: (path) => readFile(path, "utf8").catch(() => undefined),
};

/** One entry found by walk(). */
export interface WalkEntry {
  /** Absolute path. */
  readonly absolute: string;
  /** Path relative to the walk root, "/" separated. */
  readonly relative: string;
  readonly name: string;
  readonly isDir: boolean;
  /** Depth below the root: 1 for direct children. */
  readonly depth: number;
  /** When the file system's listing gave them. */
  readonly size?: number;
  readonly mtimeMs?: number;
}

/** A decision that takes precedence over ignore files ("include"/"exclude"), or none. */
export type WalkOverride = (relative: string, isDir: boolean) => "include" | "exclude" | undefined;

export interface WalkOptions {
  /** Consulted before the ignore files for every non-hidden entry. */
  readonly override?: WalkOverride;
  /** Deepest level yielded and entered; unlimited when absent. */
  readonly maxDepth?: number;
  readonly signal?: AbortSignal;
  /** Return false to skip a directory's contents (it is still yielded). */
  readonly enterDir?: (entry: WalkEntry) => boolean;
  /** Where to walk; the local file system by default. */
  readonly fs?: WalkFileSystem;
}

async function loadMatcher(
  fs: WalkFileSystem,
  dir: string,
  present?: ReadonlySet<string>,
): Promise<Matcher | undefined> {
  let rules: Ignore | undefined;
  for (const file of IGNORE_FILES) {
    if (present !== undefined && !present.has(file)) continue;
    const text = await fs.readText(join(dir, file));
    if (text === undefined) continue;
    rules ??= ignore();
    rules.add(text);
  }
  return rules && { base: dir, rules };
}

/** Matchers from the ignore files of every ancestor of dir (outermost first). */
async function ancestorMatchers(fs: WalkFileSystem, dir: string): Promise<Matcher[]> {
  const dirs: string[] = [];
  for (let d = dirname(dir); ; d = dirname(d)) {
    dirs.unshift(d);
    if (dirname(d) === d) break;
  }
  const out: Matcher[] = [];
  for (const d of dirs) {
    const m = await loadMatcher(fs, d);
    if (m) out.push(m);
  }
  return out;
}

/** Decides with the innermost ignore file that has an opinion, so deeper files can re-include. */
function isIgnored(matchers: readonly Matcher[], absolute: string, isDir: boolean): boolean {
  for (let i = matchers.length - 1; i >= 0; i--) {
    const m = matchers[i] as Matcher;
    // Walked paths extend their matchers' bases, so slicing is enough (and much cheaper).
    const base = m.base.endsWith(sep) ? m.base : m.base + sep;
    let rel = absolute.startsWith(base) ? absolute.slice(base.length) : relative(m.base, absolute);
    if (sep !== "/") rel = rel.split(sep).join("/");
    if (rel === "" || rel.startsWith("..")) continue;
    const result = m.rules.test(isDir ? `${rel}/` : rel);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/**
 * Walks a directory tree depth-first in sorted order like ripgrep's default filters: hidden
 * entries (dot names, .git included) are skipped, .gitignore/.ignore/.rgignore rules of the root,
 * its ancestors and its subdirectories are honoured, symbolic links are not followed.
 * Memory stays proportional to the depth times the widest directory, not to the tree.
 */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const fs = options.fs ?? LOCAL_FS;
  // Frames carry their parent's matchers; a directory's own ignore files are read only when its
  // listing shows them, which spares a failed open per file name in every directory.
  const stack: { dir: string; rel: string; depth: number; matchers: readonly Matcher[] }[] = [
    { dir: root, rel: "", depth: 0, matchers: await ancestorMatchers(fs, root) },
  ];
  while (stack.length > 0) {
    if (options.signal?.aborted) return;
    const frame = stack.pop() as (typeof stack)[number];
    let dirents: WalkDirent[];
    try {
      dirents = [...(await fs.readdir(frame.dir))];
    } catch {
      continue; // unreadable directory: skipped, as ripgrep does after a warning
    }
    const present = new Set<string>();
    for (const d of dirents) if (IGNORE_NAMES.has(d.name)) present.add(d.name);
    const own = present.size > 0 ? await loadMatcher(fs, frame.dir, present) : undefined;
    const matchers = own ? [...frame.matchers, own] : frame.matchers;
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: (typeof stack)[number][] = [];
    const prefix = frame.dir.endsWith(sep) ? frame.dir : frame.dir + sep;
    for (const d of dirents) {
      if (d.name.startsWith(".")) continue;
      const isDir = d.isDir;
      if (!isDir && !d.isFile) continue; // symlinks, sockets, fifos
      const absolute = prefix + d.name;
      const relativePath = frame.rel === "" ? d.name : `${frame.rel}/${d.name}`;
      const forced = options.override?.(relativePath, isDir);
      if (forced === "exclude") continue;
      if (forced !== "include" && isIgnored(matchers, absolute, isDir)) continue;
      const entry: WalkEntry = {
        absolute,
        relative: relativePath,
        name: d.name,
        isDir,
        depth: frame.depth + 1,
        ...(d.size !== undefined && { size: d.size }),
        ...(d.mtimeMs !== undefined && { mtimeMs: d.mtimeMs }),
      };
      yield entry;
      if (isDir && (options.maxDepth === undefined || entry.depth < options.maxDepth)) {
        if (options.enterDir && !options.enterDir(entry)) continue;
        subdirs.push({ dir: absolute, rel: entry.relative, depth: entry.depth, matchers });
      }
    }
    // Reverse so the stack pops directories in sorted order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i] as (typeof stack)[number]);
  }
}
