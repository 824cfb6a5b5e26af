import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import picomatch from "picomatch";
import { InvalidPatternError } from "./errors.js";
import type { FileHits } from "./grep-collector.js";
import { type WalkOverride, walk } from "./ignore-walk.js";

/** Files whose first 8 KiB contain a NUL byte are binary and skipped, as ripgrep does. */
const BINARY_SNIFF_BYTES = 8192;
/** Files read at once. */
const CONCURRENCY = 16;

/** Compiles a search regex the way ripgrep reads it, or throws InvalidPatternError. */
export function compileRegex(pattern: string, caseInsensitive: boolean): RegExp {
  const flags = caseInsensitive ? "i" : "";
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    // Some escapes (\-, \/) are only legal without the unicode flag; ripgrep accepts them.
    try {
      return new RegExp(pattern, flags);
    } catch (err) {
      throw new InvalidPatternError(pattern, (err as Error).message);
    }
  }
}

/**
 * A file filter with ripgrep's --glob semantics: a pattern without "/" matches the base name at
 * any depth, one with "/" matches the path relative to the search root. A plain glob is a
 * whitelist that wins over ignore files for files ("include"/"exclude"); a "!" glob excludes
 * matching files and directories and otherwise leaves the decision to the ignore rules.
 */
export function compileGlobOverride(glob: string): WalkOverride {
  const negate = glob.startsWith("!");
  const body = negate ? glob.slice(1) : glob;
  const anchored = body.includes("/");
  const matcher = picomatch(body.replace(/^\//, ""), { dot: true });
  return (rel, isDir) => {
    const hit = matcher(anchored ? rel : basename(rel));
    if (negate) return hit ? "exclude" : undefined;
    if (isDir) return undefined;
    return hit ? "include" : "exclude";
  };
}

/** Searches one file's text; context lines are gathered for every match window. */
export function searchText(path: string, text: string, regex: RegExp, contextLines: number): FileHits {
  const all = text.split("\n");
  if (all.length > 0 && all[all.length - 1] === "") all.pop();
  const matches: { line: number; text: string }[] = [];
  const lines = new Map<number, string>();
  for (let i = 0; i < all.length; i++) {
    const line = all[i] as string;
    regex.lastIndex = 0;
    if (!regex.test(line)) continue;
    matches.push({ line: i + 1, text: line });
    const from = Math.max(0, i - contextLines);
    const to = Math.min(all.length - 1, i + contextLines);
    for (let j = from; j <= to; j++) lines.set(j + 1, all[j] as string);
  }
  return { path, matches, lines };
}

async function searchFile(path: string, regex: RegExp, contextLines: number): Promise<FileHits | undefined> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch {
    return undefined; // unreadable: skipped like ripgrep
  }
  if (buf.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return undefined;
  return searchText(path, buf.toString("utf8"), regex, contextLines);
}

export interface JavaScriptGrepOptions {
  readonly caseInsensitive: boolean;
  readonly contextLines: number;
  readonly globFilter?: string;
  readonly isFile: boolean;
  readonly signal?: AbortSignal;
}

/** The fallback engine: walks like ripgrep and hands each file's hits to `onFile`. */
export async function grepJavaScript(
  pattern: string,
  root: string,
  options: JavaScriptGrepOptions,
  onFile: (hits: FileHits) => void,
): Promise<void> {
  const regex = compileRegex(pattern, options.caseInsensitive);
  if (options.isFile) {
    const hits = await searchFile(root, regex, options.contextLines);
    if (hits) onFile(hits);
    return;
  }
  const override = options.globFilter ? compileGlobOverride(options.globFilter) : undefined;
  let batch: Promise<FileHits | undefined>[] = [];
  const flush = async (): Promise<void> => {
    for (const hits of await Promise.all(batch)) if (hits) onFile(hits);
    batch = [];
  };
  const walkOptions = {
    ...(options.signal !== undefined && { signal: options.signal }),
    ...(override !== undefined && { override }),
  };
  for await (const entry of walk(root, walkOptions)) {
    if (entry.isDir) continue;
    batch.push(searchFile(entry.absolute, regex, options.contextLines));
    if (batch.length >= CONCURRENCY) await flush();
  }
  await flush();
}
