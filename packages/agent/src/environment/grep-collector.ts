import type { GrepMatch, GrepOutputMode, GrepResult } from "../types/environment.js";

/** The matches one engine found in one file. */
export interface FileHits {
  /** Absolute path. */
  readonly path: string;
  /** Matching lines, ascending, 1-based. */
  readonly matches: readonly { readonly line: number; readonly text: string }[];
  /** Every line the engine reported around matches (matching lines included), by number. */
  readonly lines: ReadonlyMap<number, string>;
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
 * Gathers per-file hits from either engine into one GrepResult ordered by path then line, so both
 * engines answer identically. Memory stays bounded: once far more than maxResults are held, the
 * hits that sort last are dropped (their counts are kept).
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

  /** Adds one file's hits (files without matches are ignored). */
  add(hits: FileHits): void {
    if (hits.matches.length === 0) return;
    this.totalLines += hits.matches.length;
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
      const files = this.hits
        .slice(0, maxResults)
        .map((h) => ({ path: h.path, count: h.hits.matches.length }));
      return {
        mode,
        matches: [],
        files,
        total: this.totalFiles,
        truncated: this.totalFiles > maxResults,
        engine,
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
