import type { GrepMatch, GrepOutputMode, GrepResult } from "../types/environment.js";

/** The matches one engine found in one file. */
export interface FileHits {
  /** Absolute path. */
  readonly path: string;
  /** Every matching line of the file. */
  readonly count: number;
  /** The first matching lines, ascending, 1-based (at most the cap the engine was given). */
  readonly matches: readonly { readonly line: number; readonly text: string }[];
  /** Lines around the kept matches (matching lines included), by number. */
  readonly lines: ReadonlyMap<number, string>;
  /**
   * More matching lines than can be shown were found, so the engine stopped counting this file
   * at one more than that (ripgrep's --max-count): `count` is a lower bound.
   */
  readonly capped?: boolean;
}

/**
 * Builds one file's FileHits from lines fed in order, keeping at most `cap` matches (and only
 * the context lines those need) while counting all of them, so a file with millions of matching
 * lines costs no more than one with `cap`.
 */
export class HitsBuilder {
  private readonly matches: { line: number; text: string }[] = [];
  private readonly lines = new Map<number, string>();
  private count = 0;
  private lastKept = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly path: string,
    private readonly cap: number,
    private readonly contextLines: number,
  ) {}

  private pastWindow = false;

  /** Whether a line numbered `n` may still be needed as context (before or after a kept match). */
  private wanted(n: number): boolean {
    if (this.matches.length < this.cap || n <= this.lastKept + this.contextLines) return true;
    this.pastWindow = true;
    return false;
  }

  /**
   * True once no later line can be kept: the cap is reached and the context window of the last
   * kept match is behind. From then on only countMatch() is needed, which lets an engine skip
   * decoding what it reads.
   */
  get saturated(): boolean {
    return this.matches.length >= this.cap && (this.contextLines === 0 || this.pastWindow);
  }

  /** A matching line that is known not to be kept (see saturated). */
  countMatch(): void {
    this.count++;
  }

  /** A matching line. */
  match(n: number, text: string): void {
    this.count++;
    if (this.matches.length < this.cap) {
      this.matches.push({ line: n, text });
      this.lastKept = n;
      this.lines.set(n, text);
    } else if (this.contextLines > 0 && this.wanted(n)) {
      this.lines.set(n, text);
    }
  }

  /** A line reported (or seen) as context of some match. */
  context(n: number, text: string): void {
    if (this.contextLines > 0 && this.wanted(n)) this.lines.set(n, text);
  }

  get found(): number {
    return this.count;
  }

  /** True once the count has reached one more than the cap (content mode): counting may stop. */
  get full(): boolean {
    return this.cap > 0 && this.count > this.cap;
  }

  build(): FileHits {
    return {
      path: this.path,
      count: this.count,
      matches: this.matches,
      lines: this.lines,
      ...(this.full && { capped: true }),
    };
  }
}

export interface CollectorOptions {
  readonly mode: GrepOutputMode;
  readonly maxResults: number;
  readonly contextLines: number;
  readonly display: (absolute: string) => string;
}

const byPath = (a: { path: string }, b: { path: string }): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/**
 * Gathers per-file hits from either engine into one GrepResult ordered by path then line. An
 * engine stops once enough() says the results are in; until then both engines answer
 * identically. Memory stays bounded: once far more than maxResults are held, the hits that sort
 * last are dropped (their counts are kept).
 */
export class GrepCollector {
  private readonly options: CollectorOptions;
  private hits: { path: string; hits: FileHits }[] = [];
  private held = 0;
  private totalLines = 0;
  private totalFiles = 0;

  constructor(options: CollectorOptions) {
    this.options = options;
  }

  /** How many matches of one file an engine needs to keep: the rest are only counted. */
  get perFileCap(): number {
    return this.options.mode === "content" ? this.options.maxResults : 0;
  }

  private stopped = false;

  /**
   * True once the results that will be returned are all in, plus one more that proves there are
   * others: an engine stops searching there. `pending` counts matches of a file still being read
   * (content mode only; the other modes decide at file ends).
   */
  enough(pending = 0): boolean {
    const { mode, maxResults } = this.options;
    const done =
      mode === "content"
        ? this.totalLines + pending > maxResults
        : pending === 0 && this.totalFiles > maxResults;
    if (done) this.stopped = true;
    return done;
  }

  /** Adds one file's hits (files without matches are ignored). */
  add(hits: FileHits): void {
    if (hits.count === 0) return;
    if (hits.capped === true) this.stopped = true;
    this.totalLines += hits.count;
    this.totalFiles++;
    this.hits.push({ path: this.options.display(hits.path), hits });
    this.held += this.options.mode === "content" ? hits.matches.length : 1;
    if (this.held > 4 * this.options.maxResults + 64) this.trim();
  }

  private trim(): void {
    this.hits.sort(byPath);
    const kept: typeof this.hits = [];
    let held = 0;
    for (const h of this.hits) {
      if (held >= this.options.maxResults) break;
      kept.push(h);
      held += this.options.mode === "content" ? h.hits.matches.length : 1;
    }
    this.hits = kept;
    this.held = held;
  }

  /** The final result. */
  result(engine: GrepResult["engine"]): GrepResult {
    this.trim();
    const { mode, maxResults, contextLines } = this.options;
    if (mode !== "content") {
      const files = this.hits.slice(0, maxResults).map((h) => ({ path: h.path, count: h.hits.count }));
      return {
        mode,
        matches: [],
        files,
        total: this.totalFiles,
        truncated: this.totalFiles > maxResults,
        engine,
        ...(this.stopped && { stoppedEarly: true }),
      };
    }
    const matches: GrepMatch[] = [];
    outer: for (const h of this.hits) {
      for (const m of h.hits.matches) {
        if (matches.length >= maxResults) break outer;
        matches.push(withContext(h.path, m, h.hits.lines, contextLines));
      }
    }
    return {
      mode,
      matches,
      files: [],
      total: this.totalLines,
      truncated: this.totalLines > maxResults,
      engine,
      ...(this.stopped && { stoppedEarly: true }),
    };
  }
}

function withContext(
  path: string,
  m: { readonly line: number; readonly text: string },
  lines: ReadonlyMap<number, string>,
  n: number,
): GrepMatch {
  if (n <= 0) return { path, line: m.line, text: m.text };
  const before: string[] = [];
  for (let l = Math.max(1, m.line - n); l < m.line; l++) {
    const t = lines.get(l);
    if (t !== undefined) before.push(t);
  }
  const after: string[] = [];
  for (let l = m.line + 1; l <= m.line + n; l++) {
    const t = lines.get(l);
    if (t === undefined) break;
    after.push(t);
  }
  return { path, line: m.line, text: m.text, before, after };
}
