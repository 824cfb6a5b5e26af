import { extname } from "node:path";

/** How to start one language server and which files it covers. */
export interface LanguageServerConfig {
  /** A name for messages and settings, e.g. "typescript", "gopls". */
  readonly id: string;
  /** The program: a name found in the project's node_modules/.bin or on PATH, or a path. */
  readonly command: string;
  readonly args?: readonly string[];
  /** File extensions it covers, with the dot: [".go"]. */
  readonly extensions: readonly string[];
  /**
   * Files or directories that mark a workspace root, by priority: the root of a file is the
   * nearest ancestor holding the first marker found upwards. None: the working directory.
   */
  readonly rootMarkers?: readonly string[];
  /** Sent in `initialize`. */
  readonly initializationOptions?: unknown;
  /** LSP language ids by extension (default: the extension without its dot). */
  readonly languageIds?: Readonly<Record<string, string>>;
}

/** TypeScript and JavaScript through typescript-language-server (the project's own typescript). */
export const TYPESCRIPT_SERVER: LanguageServerConfig = {
  id: "typescript",
  command: "typescript-language-server",
  args: ["--stdio"],
  // Only the semantic server: the syntax server answers while the project loads, with definitions
  // that stop at import statements. No automatic typing acquisition: it installs @types packages
  // from the network into a cache in the home directory (and fails, taking the server down, in a
  // sandbox).
  initializationOptions: { disableAutomaticTypingAcquisition: true, tsserver: { useSyntaxServer: "never" } },
  extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
  // Lock files first, so a monorepo is one workspace rather than one per package.
  rootMarkers: [
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lock",
    "bun.lockb",
    "tsconfig.json",
    "jsconfig.json",
    "package.json",
  ],
  languageIds: {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
  },
};

/** Python through pyright-langserver. */
export const PYTHON_SERVER: LanguageServerConfig = {
  id: "python",
  command: "pyright-langserver",
  args: ["--stdio"],
  extensions: [".py", ".pyi"],
  rootMarkers: [
    "pyrightconfig.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "Pipfile",
  ],
  languageIds: { ".py": "python", ".pyi": "python" },
};

/** The servers built in; settings add others or replace these by id. */
export const BUILTIN_LANGUAGE_SERVERS: readonly LanguageServerConfig[] = [TYPESCRIPT_SERVER, PYTHON_SERVER];

/** The built-in servers with `extra` added; an extra with a built-in's id replaces it. */
export function mergeServerConfigs(extra: readonly LanguageServerConfig[] = []): LanguageServerConfig[] {
  const byId = new Map<string, LanguageServerConfig>();
  for (const s of [...BUILTIN_LANGUAGE_SERVERS, ...extra]) byId.set(s.id, s);
  return [...byId.values()];
}

/** A file's extension as servers list it (".ts"), lower-cased; "" when it has none. */
export function extensionOf(path: string): string {
  return extname(path).toLowerCase();
}

/** The server covering a file, the last configured winning (settings over built-ins). */
export function serverFor(
  servers: readonly LanguageServerConfig[],
  path: string,
): LanguageServerConfig | undefined {
  const ext = extensionOf(path);
  if (ext === "") return undefined;
  for (let i = servers.length - 1; i >= 0; i--) {
    const s = servers[i]!;
    if (s.extensions.some((e) => e.toLowerCase() === ext)) return s;
  }
  return undefined;
}

/** The LSP language id of a file for a server. */
export function languageIdOf(server: LanguageServerConfig, path: string): string {
  const ext = extensionOf(path);
  return server.languageIds?.[ext] ?? ext.replace(/^\./, "");
}
