/** Why code intelligence could not answer; tools turn these into readable results, never throw them on. */
export class CodeIntelligenceError extends Error {
  override readonly name: string = "CodeIntelligenceError";
}

/** No configured language server covers the file's extension, or its program is not installed. */
export class NoLanguageServerError extends CodeIntelligenceError {
  override readonly name = "NoLanguageServerError";
  readonly extension: string;
  /** The server that would cover the file but was not found, when there is one. */
  readonly serverId: string | undefined;
  constructor(extension: string, serverId?: string, detail?: string) {
    super(
      serverId === undefined
        ? `No language server for ${extension || "files without an extension"} (configure one in settings under lsp.servers).`
        : `No language server for ${extension}: ${detail ?? `${serverId} is not installed`} (install it, or configure one in settings under lsp.servers).`,
    );
    this.extension = extension;
    this.serverId = serverId;
  }
}

/** A language server could not start, stopped, or failed a request. */
export class LanguageServerFailedError extends CodeIntelligenceError {
  override readonly name = "LanguageServerFailedError";
  readonly serverId: string;
  readonly root: string;
  constructor(serverId: string, root: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.serverId = serverId;
    this.root = root;
  }
}

/** A position could not be resolved from the call's path, symbolName, line and character. */
export class SymbolNotFoundError extends CodeIntelligenceError {
  override readonly name = "SymbolNotFoundError";
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}
