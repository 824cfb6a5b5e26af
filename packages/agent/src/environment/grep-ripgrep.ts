import { spawn, spawnSync } from "node:child_process";
import { basename, dirname, resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";
import { CommandError, InvalidPatternError, RipgrepMissingError } from "./errors.js";
import { type FileHits, HitsBuilder } from "./grep-collector.js";
import { ripgrepCommand } from "./ripgrep-binary.js";

let available: boolean | undefined;

/** Whether `rg` can be run (checked once per process, or known from a search that ran it). */
export function ripgrepAvailable(): boolean {
  if (available === undefined) {
    const r = spawnSync(ripgrepCommand(), ["--version"], { stdio: "ignore" });
    available = r.status === 0;
  }
  return available;
}

/** Records that rg started, so later checks need not run it. */
export function markRipgrepPresent(): void {
  available = true;
}

/**
 * Whether searches should try ripgrep: true until one found it missing. Searches do not check
 * first, which would cost a process per run; a search that cannot start it says so instead.
 */
export function ripgrepWorthTrying(): boolean {
  return available !== false;
}

export interface RipgrepOptions {
  readonly caseInsensitive: boolean;
  readonly contextLines: number;
  readonly globFilter?: string;
  readonly signal?: AbortSignal;
  /** The root is a single file. */
  readonly isFile: boolean;
  /** Matches kept per file (the rest are counted). */
  readonly perFileCap: number;
  /**
   * Asked after each file (and while a file's matches keep coming): true once the caller has all
   * it will return, which stops ripgrep there instead of letting it scan the rest of the tree.
   */
  readonly enough?: (pendingMatches: number) => boolean;
}

interface RgText {
  readonly text?: string;
  readonly bytes?: string;
}

function textOf(t: RgText | undefined): string {
  if (!t) return "";
  if (t.text !== undefined) return t.text;
  return t.bytes !== undefined ? Buffer.from(t.bytes, "base64").toString("utf8") : "";
}

function stripEol(s: string): string {
  return s.endsWith("\n") ? s.slice(0, -1) : s;
}

/**
 * Runs `rg --json` and hands each file's hits to `onFile` as ripgrep finishes it. .gitignore is
 * honoured inside and outside git repositories (--no-require-git) so the fallback engine agrees.
 */
export function grepRipgrep(
  pattern: string,
  root: string,
  options: RipgrepOptions,
  onFile: (hits: FileHits) => void,
): Promise<void> {
  // Without lines to show (files and count modes), ripgrep's own counting output is several
  // times cheaper than a JSON event per matching line.
  const countOnly = options.perFileCap === 0 && options.contextLines === 0;
  const args = countOnly
    ? ["--count", "--null", "--with-filename", "--no-config", "--no-require-git"]
    : ["--json", "--no-config", "--no-require-git"];
  if (options.caseInsensitive) args.push("--ignore-case");
  else args.push("--case-sensitive");
  if (options.contextLines > 0) args.push("--context", String(options.contextLines));
  // ripgrep writes a file's output only once it has searched the whole file: without a per-file
  // cap, one file with millions of matching lines is read and encoded in full before the first
  // line arrives. One more than can be shown proves the results go on.
  if (!countOnly) args.push("--max-count", String(options.perFileCap + 1));
  if (options.globFilter) args.push("--glob", options.globFilter);
  // Globs are matched relative to rg's working directory, so run it from the search root.
  const cwd = options.isFile ? dirname(root) : root;
  args.push("--regexp", pattern, "--", options.isFile ? basename(root) : ".");
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepCommand(), args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      signal: options.signal,
    });

    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      if (stderr.length < 16_384) stderr += d;
    });
    let current: HitsBuilder | undefined;
    const rl = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    let stopped = false;
    // Enough results: ripgrep is stopped and its remaining output dropped unread.
    const stop = (): void => {
      stopped = true;
      rl.close();
      child.stdout.destroy();
      child.kill("SIGTERM");
      resolve();
    };
    rl.on("line", (line) => {
      if (stopped) return;
      if (countOnly) {
        const nul = line.lastIndexOf("\0");
        if (nul === -1) return;
        const count = Number(line.slice(nul + 1));
        onFile({ path: resolvePath(cwd, line.slice(0, nul)), count, matches: [], lines: new Map() });
        if (options.enough?.(0)) stop();
        return;
      }
      // Past what can be shown, matches are only counted: no need to parse them.
      if (current?.saturated) {
        if (line.startsWith('{"type":"match"')) {
          current.countMatch();
          if (options.enough?.(current.found)) {
            onFile(current.build());
            current = undefined;
            stop();
          }
          return;
        }
        if (line.startsWith('{"type":"context"')) return;
      }
      let msg: { type: string; data: Record<string, unknown> };
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      const data = msg.data;
      if (msg.type === "begin") {
        const path = resolvePath(cwd, textOf(data.path as RgText));
        current = new HitsBuilder(path, options.perFileCap, options.contextLines);
      } else if ((msg.type === "match" || msg.type === "context") && current) {
        const n = data.line_number as number;
        const text = stripEol(textOf(data.lines as RgText));
        if (msg.type === "match") current.match(n, text);
        else current.context(n, text);
      } else if (msg.type === "end" && current) {
        onFile(current.build());
        current = undefined;
        if (options.enough?.(0)) stop();
      }
    });
    child.on("error", (err) => {
      if ((err as Error).name === "AbortError") resolve();
      // ENOENT also stands for a missing working directory: only the check tells them apart.
      else if ((err as NodeJS.ErrnoException).code === "ENOENT" && !ripgrepAvailable())
        reject(new RipgrepMissingError(err));
      else reject(new CommandError("rg", `Could not run ripgrep: ${err.message}`, { cause: err }));
    });
    child.on("spawn", () => {
      available = true;
    });
    child.on("close", (code) => {
      if (stopped) resolve();
      else if (code === 2 && /regex|parse error|syntax/i.test(stderr)) {
        reject(new InvalidPatternError(pattern, stderr.trim().split("\n").slice(-3).join(" ")));
      } else if (code !== null && code > 1 && !/No such file|Permission denied/i.test(stderr)) {
        reject(new CommandError("rg", `ripgrep failed (exit ${code}): ${stderr.trim()}`));
      } else {
        resolve();
      }
    });
  });
}
