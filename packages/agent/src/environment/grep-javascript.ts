import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import picomatch from "picomatch";
import { type FileHits, type GrepCollector, HitsBuilder } from "./grep-collector.js";
import { compileRegex } from "./grep-regex.js";
import { type WalkFileSystem, type WalkOverride, walk } from "./ignore-walk.js";

export { compileRegex } from "./grep-regex.js";

/**
 * ripgrep reads files in blocks of this size and stops at the first block holding a NUL byte:
 * a NUL in the first block makes the whole file binary (skipped), a later one ends the search
 * there. A file named explicitly is searched whole, as ripgrep does.
 */
const BLOCK = 64 * 1024;
/** Files up to this size are read at once; larger ones are streamed block by block. */
const WHOLE_FILE_MAX = 8 * 1024 * 1024;
/** Files read at once. */
const CONCURRENCY = 16;

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

/** Feeds lines in order to a HitsBuilder, remembering the few before a match for context. */
class LineSearch {
  private readonly builder: HitsBuilder;
  private readonly before: { n: number; text: string }[] = [];
  private afterLeft = 0;

  constructor(
    path: string,
    private readonly regex: RegExp,
    private readonly contextLines: number,
    cap: number,
  ) {
    this.builder = new HitsBuilder(path, cap, contextLines);
  }

  line(n: number, text: string): void {
    this.regex.lastIndex = 0;
    if (this.builder.full) {
      // Counting stopped at one more than can be shown, as ripgrep's --max-count does; only the
      // context after the last match is still read.
      if (this.afterLeft > 0) {
        this.builder.context(n, text);
        this.afterLeft--;
      }
      return;
    }
    if (this.builder.saturated) {
      if (this.regex.test(text)) this.builder.countMatch();
      return;
    }
    if (this.regex.test(text)) {
      for (const b of this.before) this.builder.context(b.n, b.text);
      this.before.length = 0;
      this.builder.match(n, text);
      this.afterLeft = this.contextLines;
      return;
    }
    if (this.contextLines === 0) return;
    if (this.afterLeft > 0) {
      this.builder.context(n, text);
      this.afterLeft--;
      return;
    }
    this.before.push({ n, text });
    if (this.before.length > this.contextLines) this.before.shift();
  }

  result(): FileHits {
    return this.builder.build();
  }
}

/** Searches one file's text; context lines are gathered for every kept match. */
export function searchText(
  path: string,
  text: string,
  regex: RegExp,
  contextLines: number,
  cap = Number.POSITIVE_INFINITY,
): FileHits {
  const search = new LineSearch(path, regex, contextLines, cap);
  let start = 0;
  let n = 1;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    search.line(n++, text.slice(start, end));
    start = end + 1;
  }
  return search.result();
}

interface FileSearchOptions {
  readonly regex: RegExp;
  readonly contextLines: number;
  readonly cap: number;
  /** Named explicitly by the caller: binary data does not stop the search. */
  readonly explicit: boolean;
}

/** The part of a file ripgrep would search: all of it, none (binary), or up to a block. */
function searchable(buf: Buffer, explicit: boolean): Buffer | undefined {
  if (explicit) return buf;
  const nul = buf.indexOf(0);
  if (nul === -1) return buf;
  if (nul < BLOCK) return undefined;
  const blockStart = nul - (nul % BLOCK);
  // Only whole lines before the block that holds the NUL.
  return buf.subarray(0, buf.lastIndexOf(0x0a, blockStart - 1) + 1);
}

async function searchWhole(path: string, options: FileSearchOptions): Promise<FileHits | undefined> {
  const buf = searchable(await readFile(path), options.explicit);
  if (buf === undefined) return undefined;
  return searchText(path, buf.toString("utf8"), options.regex, options.contextLines, options.cap);
}

/** Streams a large file line by line; memory is one block plus the longest line. */
async function searchStreamed(path: string, options: FileSearchOptions): Promise<FileHits | undefined> {
  const search = new LineSearch(path, options.regex, options.contextLines, options.cap);
  const stream = createReadStream(path, { highWaterMark: BLOCK });
  let carry: Buffer[] = [];
  let n = 1;
  let first = true;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (!options.explicit && chunk.includes(0)) {
        if (first) return undefined;
        carry = []; // the partial line runs into binary data: ripgrep stops before it
        break;
      }
      first = false;
      let pos = 0;
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, pos)) {
        const piece = chunk.subarray(pos, nl);
        const line = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
        carry = [];
        search.line(n++, line.toString("utf8"));
        pos = nl + 1;
      }
      if (pos < chunk.length) carry.push(Buffer.from(chunk.subarray(pos)));
    }
    if (carry.length > 0) search.line(n, Buffer.concat(carry).toString("utf8"));
  } finally {
    stream.destroy();
  }
  return search.result();
}

async function searchFile(path: string, options: FileSearchOptions): Promise<FileHits | undefined> {
  try {
    const size = (await stat(path)).size;
    return size <= WHOLE_FILE_MAX ? await searchWhole(path, options) : await searchStreamed(path, options);
  } catch {
    return undefined; // unreadable (or a line too long to hold): skipped like ripgrep skips errors
  }
}

export interface JavaScriptGrepOptions {
  readonly caseInsensitive: boolean;
  readonly contextLines: number;
  readonly globFilter?: string;
  readonly isFile: boolean;
  readonly signal?: AbortSignal;
  /** Matches kept per file (the rest are counted). */
  readonly perFileCap: number;
  /** True once the caller has all it will return: the walk stops there. */
  readonly enough?: (pendingMatches: number) => boolean;
}

/** The fallback engine: walks like ripgrep and hands each file's hits to `onFile`. */
export async function grepJavaScript(
  pattern: string,
  root: string,
  options: JavaScriptGrepOptions,
  onFile: (hits: FileHits) => void,
): Promise<void> {
  const file = {
    regex: compileRegex(pattern, options.caseInsensitive),
    contextLines: options.contextLines,
    cap: options.perFileCap,
    explicit: options.isFile,
  };
  if (options.isFile) {
    const hits = await searchFile(root, file);
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
    batch.push(searchFile(entry.absolute, file));
    if (batch.length >= CONCURRENCY) {
      await flush();
      if (options.enough?.(0)) return;
    }
  }
  await flush();
}

/** Files read whole, and the walk over them, for environments that reach files through calls. */
export interface GrepFileAccess {
  readonly fs: WalkFileSystem;
  /** A file's bytes, or undefined when it cannot be read (skipped, as ripgrep skips it). */
  read(path: string): Promise<Uint8Array | undefined>;
}

/** Files read at once while walking: a remote or container file system answers faster in parallel. */
const READ_CONCURRENCY = 8;
/** Bytes looked at for a NUL to tell a binary file, as ripgrep does. */
const BINARY_PROBE_BYTES = 64 * 1024;
const utf8 = new TextDecoder();

/**
 * The engine for environments without ripgrep: walks `root` like ripgrep through `access`, reads
 * each file whole, and adds its hits to `collector`, stopping once the collector has enough.
 */
export async function grepThroughReads(
  pattern: string,
  root: string,
  options: Omit<JavaScriptGrepOptions, "perFileCap" | "enough">,
  access: GrepFileAccess,
  collector: GrepCollector,
): Promise<void> {
  const regex = compileRegex(pattern, options.caseInsensitive);
  const search = async (file: string, explicit: boolean) => {
    const bytes = await access.read(file).catch(() => undefined);
    if (!bytes || (!explicit && bytes.subarray(0, BINARY_PROBE_BYTES).includes(0))) return;
    collector.add(searchText(file, utf8.decode(bytes), regex, options.contextLines, collector.perFileCap));
  };
  if (options.isFile) return search(root, true);
  const override = options.globFilter ? compileGlobOverride(options.globFilter) : undefined;
  let batch: Promise<void>[] = [];
  for await (const e of walk(root, {
    fs: access.fs,
    ...(override !== undefined && { override }),
    ...(options.signal !== undefined && { signal: options.signal }),
  })) {
    if (e.isDir) continue;
    batch.push(search(e.absolute, false));
    if (batch.length < READ_CONCURRENCY) continue;
    await Promise.all(batch);
    batch = [];
    if (collector.enough()) return;
  }
  await Promise.all(batch);
}
