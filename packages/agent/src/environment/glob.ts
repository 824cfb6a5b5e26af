import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join, sep } from "node:path";
import picomatch from "picomatch";
import type { GlobOptions, GlobResult } from "../types/environment.js";
import { InvalidPatternError, RipgrepMissingError } from "./errors.js";
import { ripgrepFiles } from "./glob-ripgrep.js";
import type { GrepEngineChoice } from "./grep.js";
import { ripgrepWorthTrying } from "./grep-ripgrep.js";
import { walk } from "./ignore-walk.js";

export const DEFAULT_GLOB_MAX_RESULTS = 1000;
/** Files stat'ed between two turns of the event loop. */
const STAT_SLICE = 256;

/** A file's mtime, or undefined when it went away or cannot be read. */
function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  } catch {
    return undefined;
  }
}

/** A glob pattern made ready to match paths relative to the search root. */
export interface GlobMatcher {
  /** The pattern as matched: "./" dropped, and a pattern without "/" made "**\/pattern". */
  readonly pattern: string;
  readonly isMatch: (relative: string) => boolean;
}

/** Compiles a glob tool pattern (picomatch syntax, no dot files); throws InvalidPatternError. */
export function globMatcher(pattern: string): GlobMatcher {
  let cleaned = pattern.replace(/^\.\//, "");
  if (!cleaned.includes("/")) cleaned = `**/${cleaned}`;
  try {
    return { pattern: cleaned, isMatch: picomatch(cleaned, { dot: false }) };
  } catch (err) {
    throw new InvalidPatternError(pattern, (err as Error).message);
  }
}

/** The glob result: newest first (ties by path), `max` kept, each path shown by `display`. */
export function newestFirst(
  found: { path: string; mtime: number }[],
  max: number,
  display: (path: string) => string = (path) => path,
): GlobResult {
  found.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    // Only the paths returned are turned into display form.
    paths: found.slice(0, max).map((f) => display(f.path)),
    total: found.length,
    truncated: found.length > max,
  };
}

export interface GlobFilesOptions extends GlobOptions {
  readonly display: (absolute: string) => string;
  /** "javascript" walks the tree in JavaScript; otherwise `rg --files` lists it when rg can run. */
  readonly engine?: GrepEngineChoice;
}

// The files to stat: listed by `rg --files` (several times faster than walking big trees in
// JavaScript) and checked against the pattern, or walked in JavaScript when ripgrep is missing
// or not wanted.
async function matchingFiles(
  root: string,
  base: string,
  prefix: string,
  isMatch: (p: string) => boolean,
  options: GlobFilesOptions,
): Promise<string[]> {
  if (options.engine !== "javascript" && ripgrepWorthTrying()) {
    try {
      const listed = await ripgrepFiles(root, base, options.signal);
      const prefix = root.endsWith(sep) ? root : root + sep;
      return listed.filter((p) => isMatch(p)).map((p) => prefix + p);
    } catch (err) {
      if (!(err instanceof RipgrepMissingError) || options.engine === "ripgrep") throw err;
    }
  }
  const start = base ? join(root, base) : root;
  const matched: string[] = [];
  for await (const e of walk(start, options.signal ? { signal: options.signal } : {})) {
    if (!e.isDir && isMatch(prefix + e.relative)) matched.push(e.absolute);
  }
  return matched;
}

/**
 * Files under root whose path relative to root matches the pattern (picomatch syntax; a pattern
 * without "/" matches base names at any depth, like "*.ts"), .gitignore honoured, newest first.
 * Only matching files are stat'ed, and only the newest maxResults are kept at the end. The files
 * are listed by `rg --files` when ripgrep can run, else by a JavaScript walk; both agree.
 */
export async function globFiles(
  pattern: string,
  root: string,
  options: GlobFilesOptions,
): Promise<GlobResult> {
  const max = Math.max(1, Math.floor(options.maxResults ?? DEFAULT_GLOB_MAX_RESULTS));
  const { pattern: cleaned, isMatch } = globMatcher(pattern);
  // Start the walk at the pattern's literal prefix ("src/**/*.ts" walks src only).
  const scan = picomatch.scan(cleaned);
  const base = scan.isGlob ? scan.base : "";
  const start = base ? join(root, base) : root;
  const prefix = base ? `${base}/` : "";
  const baseExists = await stat(start).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const found: { path: string; mtime: number }[] = [];
  if (!scan.isGlob) {
    const s = await stat(join(root, cleaned)).catch(() => undefined);
    if (s?.isFile()) found.push({ path: join(root, cleaned), mtime: s.mtimeMs });
  } else if (baseExists) {
    const matched = await matchingFiles(root, base, prefix, isMatch, options);
    // Synchronous stat in short slices: several times faster than queueing tens of thousands of
    // calls on the thread pool, and the event loop still runs between slices.
    for (let i = 0; i < matched.length; i += STAT_SLICE) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) break;
      for (const path of matched.slice(i, i + STAT_SLICE)) {
        const mtime = mtimeOf(path);
        if (mtime !== undefined) found.push({ path, mtime });
      }
    }
  }
  return newestFirst(found, max, options.display);
}
