import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import type { Parser } from "web-tree-sitter";
import { plainLineTree } from "./plain-line.js";
import type { SyntaxTree } from "./syntax-tree.js";

export type { SyntaxNode, SyntaxTree } from "./syntax-tree.js";

/** parseBash() met a line that needs the grammar before loadBashParser() had finished. */
export class BashParserNotLoadedError extends Error {
  override readonly name = "BashParserNotLoadedError";
  constructor() {
    super("parseBash() called before loadBashParser() finished");
  }
}

/** The bash grammar or the parser runtime could not be loaded: shell commands cannot be judged. */
export class ShellParserUnavailableError extends Error {
  override readonly name = "ShellParserUnavailableError";
  constructor(
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(`the bash parser could not be loaded (${file} not found or unreadable)`, options);
  }
}

/** The WebAssembly files the parser needs, and the npm packages that ship them. */
const WASM_FILES = [
  { name: "web-tree-sitter.wasm", module: "web-tree-sitter/web-tree-sitter.wasm" },
  { name: "tree-sitter-bash.wasm", module: "tree-sitter-bash/tree-sitter-bash.wasm" },
] as const;

/**
 * Where a .wasm file is: beside this module (the compiled library and the bundle's entry), one
 * folder up (the bundle's chunks), else in node_modules (running from source).
 */
function locate(file: (typeof WASM_FILES)[number]): string {
  for (const candidate of [`./${file.name}`, `../${file.name}`]) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  try {
    return createRequire(import.meta.url).resolve(file.module);
  } catch (error) {
    throw new ShellParserUnavailableError(file.name, { cause: error });
  }
}

let loading: Promise<Parser> | undefined;
let loaded: Parser | undefined;

/**
 * Loads tree-sitter and its bash grammar once (on first use, not at start-up); later calls return
 * the same parser (opaque: its type stays out of the published declarations, where web-tree-sitter
 * is not a dependency). Rejects with ShellParserUnavailableError when a file is missing.
 */
export function loadBashParser(): Promise<unknown> {
  loading ??= (async () => {
    const [runtimePath, grammarPath] = WASM_FILES.map(locate) as [string, string];
    const { Parser, Language } = await import("web-tree-sitter");
    // Baseline-compiled code only: V8 otherwise recompiles the whole 1.3 MB grammar with its
    // optimising compiler on a background thread, which takes a core for half a second or more,
    // and a process that exits meanwhile waits for that compilation before it can end. Commands
    // are short; the baseline code parses them as fast as anyone notices.
    // A code cache entry still to be written must be made under the flags it will be read with.
    (globalThis as Record<symbol, (() => void) | undefined>)[Symbol.for("attractor.beforeV8FlagsChange")]?.();
    setFlagsFromString("--liftoff-only");
    // The runtime's own .wasm is handed over as bytes: the bundle has no node_modules to look in.
    await Parser.init({ wasmBinary: readFileSync(runtimePath) });
    const language = await Language.load(readFileSync(grammarPath));
    const parser = new Parser();
    parser.setLanguage(language);
    loaded = parser;
    return parser;
  })();
  // A failed load may be retried by a later check (the files can appear, e.g. after a rebuild).
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** True once loadBashParser() has finished. */
export function bashParserReady(): boolean {
  return loaded !== undefined;
}

/**
 * Parses a script; the caller must delete the tree. A line of plain words is parsed without the
 * grammar; any other line throws BashParserNotLoadedError until loadBashParser() has finished.
 */
export function parseBash(source: string): SyntaxTree {
  return plainLineTree(source) ?? parseBashWithGrammar(source);
}

/** Parses a script with the grammar alone (no plain-line shortcut); requires loadBashParser(). */
export function parseBashWithGrammar(source: string): SyntaxTree {
  if (!loaded) throw new BashParserNotLoadedError();
  const tree = loaded.parse(source);
  if (!tree) throw new Error("the bash parser returned no tree");
  return tree;
}
