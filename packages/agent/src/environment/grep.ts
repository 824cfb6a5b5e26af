import type { GrepOptions, GrepResult } from "../types/environment.js";
import { RipgrepMissingError } from "./errors.js";
import { GrepCollector } from "./grep-collector.js";
import { grepJavaScript } from "./grep-javascript.js";
import { grepRipgrep, ripgrepWorthTrying } from "./grep-ripgrep.js";

/** Which grep engine to use: ripgrep when installed ("auto"), or one forced. */
export type GrepEngineChoice = "auto" | "ripgrep" | "javascript";

export const DEFAULT_GREP_MAX_RESULTS = 100;

export interface GrepFilesOptions extends GrepOptions {
  readonly engine: GrepEngineChoice;
  /** Turns an absolute path into the one results show. */
  readonly display: (absolute: string) => string;
  /** The root is a single file. */
  readonly isFile: boolean;
}

/** Searches a file or a tree with the chosen engine; both engines give the same result. */
export async function grepFiles(
  pattern: string,
  root: string,
  options: GrepFilesOptions,
): Promise<GrepResult> {
  let engine = options.engine === "auto" ? (ripgrepWorthTrying() ? "ripgrep" : "javascript") : options.engine;
  const mode = options.outputMode ?? "content";
  const contextLines = mode === "content" ? Math.max(0, Math.floor(options.contextLines ?? 0)) : 0;
  const collector = new GrepCollector({
    mode,
    maxResults: Math.max(1, Math.floor(options.maxResults ?? DEFAULT_GREP_MAX_RESULTS)),
    contextLines,
    display: options.display,
  });
  const common = {
    caseInsensitive: options.caseInsensitive ?? false,
    contextLines,
    ...(options.globFilter !== undefined && options.globFilter !== "" && { globFilter: options.globFilter }),
    ...(options.signal !== undefined && { signal: options.signal }),
  };
  const onFile = collector.add.bind(collector);
  const scope = {
    isFile: options.isFile,
    perFileCap: collector.perFileCap,
    enough: (pending: number) => collector.enough(pending),
  };
  if (engine === "ripgrep") {
    try {
      await grepRipgrep(pattern, root, { ...common, ...scope }, onFile);
    } catch (err) {
      // Not installed: "auto" falls back (nothing was collected, rg never started).
      if (!(err instanceof RipgrepMissingError) || options.engine !== "auto") throw err;
      engine = "javascript";
    }
  }
  if (engine === "javascript") await grepJavaScript(pattern, root, { ...common, ...scope }, onFile);
  return collector.result(engine);
}
