// The only module that loads the protocol library: code-intelligence.ts imports it on first use,
// so a host that never asks a language server anything never parses it.

import type {
  ClientCapabilities,
  Diagnostic,
  InitializeResult,
  ProtocolConnection,
  PublishDiagnosticsParams,
  ServerCapabilities,
} from "vscode-languageserver-protocol";
import lspNode from "vscode-languageserver-protocol/node";
import type { ExecutionEnvironment, LongLivedProcess } from "../types/environment.js";
import { LanguageServerFailedError } from "./errors.js";
import { uriOf } from "./format.js";
import { fromTsserver, TSSERVER_REQUEST_COMMAND, tsserverBody } from "./pulled-diagnostics.js";
import { type LanguageServerConfig, languageIdOf } from "./servers.js";

const { createProtocolConnection, StreamMessageReader, StreamMessageWriter, CancellationTokenSource } =
  lspNode;

/** What the client declares it understands: the requests the tools make, nothing to edit with. */
const CLIENT_CAPABILITIES: ClientCapabilities = {
  general: { positionEncodings: ["utf-16"] },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    symbol: { dynamicRegistration: false },
  },
  window: { workDoneProgress: true },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: false },
    definition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["markdown", "plaintext"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: { dynamicRegistration: false },
    typeHierarchy: { dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: true },
  },
};

/** How long a server gets to answer `initialize`, and any later request. */
export interface ClientTimeouts {
  readonly startMs: number;
  readonly requestMs: number;
}

interface OpenDocument {
  version: number;
  text: string;
}

interface DiagnosticsEntry {
  readonly diagnostics: readonly Diagnostic[];
  /** The document version they were computed for, when the server says. */
  readonly version: number | undefined;
  /** Increases with every publication, so waiters can tell a fresh one. */
  readonly sequence: number;
}

/**
 * One running language server: the JSON-RPC connection over the process's stdio, the documents
 * it has been shown, and the diagnostics it published. Requests reject with
 * LanguageServerFailedError when the server fails, times out or has stopped.
 */
export class LanguageServerClient {
  readonly server: LanguageServerConfig;
  readonly root: string;
  readonly capabilities: ServerCapabilities;
  private readonly process: LongLivedProcess;
  private readonly onExit: OnExit;
  private readonly connection: ProtocolConnection;
  private readonly timeouts: ClientTimeouts;
  private readonly documents = new Map<string, OpenDocument>();
  private readonly diagnostics = new Map<string, DiagnosticsEntry>();
  private readonly waiters = new Set<() => void>();
  private sequence = 0;
  private stopping = false;
  private exitValue: { exitCode: number | null; signal: string | null } | undefined;
  private readonly stderrTail: string[];

  private constructor(parts: {
    server: LanguageServerConfig;
    root: string;
    process: LongLivedProcess;
    onExit: OnExit;
    connection: ProtocolConnection;
    capabilities: ServerCapabilities;
    timeouts: ClientTimeouts;
    stderrTail: string[];
  }) {
    this.server = parts.server;
    this.root = parts.root;
    this.process = parts.process;
    this.onExit = parts.onExit;
    this.connection = parts.connection;
    this.capabilities = parts.capabilities;
    this.timeouts = parts.timeouts;
    this.stderrTail = parts.stderrTail;
    this.connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
      this.diagnostics.set(params.uri, {
        diagnostics: params.diagnostics,
        version: params.version,
        sequence: ++this.sequence,
      });
      for (const wake of [...this.waiters]) wake();
    });
    void this.process.exited.then((exit) => {
      this.exitValue = exit;
      for (const wake of [...this.waiters]) wake();
    });
  }

  /**
   * Starts `command` through the environment in `root`, initializes it and returns the client.
   * Rejects with LanguageServerFailedError when the program cannot start or does not initialize.
   */
  static async start(
    env: ExecutionEnvironment,
    server: LanguageServerConfig,
    command: string,
    root: string,
    timeouts: ClientTimeouts,
    initializationOptions?: unknown,
    signal?: AbortSignal,
  ): Promise<LanguageServerClient> {
    if (!env.startProcess) {
      throw new LanguageServerFailedError(server.id, root, "This environment cannot run language servers.");
    }
    let proc: LongLivedProcess;
    try {
      proc = await env.startProcess(command, server.args ?? [], { workingDir: root });
    } catch (error) {
      throw new LanguageServerFailedError(server.id, root, describe(error), { cause: error });
    }
    // Shutting down while the server starts stops it at once.
    const stop = (): void => proc.kill();
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", stop, { once: true });
    const stderrTail: string[] = [];
    proc.stderr.on("data", (chunk: Buffer) => {
      stderrTail.push(chunk.toString("utf8"));
      while (stderrTail.length > 20) stderrTail.shift();
    });
    const connection = createProtocolConnection(
      new StreamMessageReader(proc.stdout),
      new StreamMessageWriter(proc.stdin),
    );
    // Servers ask for settings, progress tokens and registrations; none of them needs more than a null.
    connection.onRequest("workspace/configuration", (params: { items?: unknown[] }) =>
      (params.items ?? []).map(() => null),
    );
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("client/unregisterCapability", () => null);
    connection.onRequest("workspace/workspaceFolders", () => [{ uri: uriOf(root), name: root }]);
    connection.onError(() => {});
    connection.listen();
    const rootUri = uriOf(root);
    const onExit = exitListeners(proc);
    const init = connection.sendRequest<InitializeResult>("initialize", {
      processId: process.pid,
      rootUri,
      rootPath: root,
      workspaceFolders: [{ uri: rootUri, name: root }],
      capabilities: CLIENT_CAPABILITIES,
      ...(initializationOptions !== undefined && { initializationOptions }),
    });
    let result: InitializeResult;
    try {
      result = await raceExit(init, onExit, timeouts.startMs, "initialize");
    } catch (error) {
      signal?.removeEventListener("abort", stop);
      // A program that exits at once fails the first write (EPIPE): its exit and what it printed say more.
      const exit = await Promise.race([
        proc.exited,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000).unref()),
      ]);
      proc.kill();
      connection.dispose();
      const reason = exit ? `it exited (${exit.signal ?? `code ${exit.exitCode}`})` : describe(error);
      const tail = stderrTail.join("").trim().split("\n").slice(-3).join("\n");
      throw new LanguageServerFailedError(
        server.id,
        root,
        `${server.command} did not start: ${reason}${tail ? `\n${tail}` : ""}`,
        { cause: error },
      );
    }
    signal?.removeEventListener("abort", stop);
    await connection.sendNotification("initialized", {});
    return new LanguageServerClient({
      server,
      root,
      process: proc,
      onExit,
      connection,
      capabilities: result.capabilities,
      timeouts,
      stderrTail,
    });
  }

  /** The server's process id, when the environment knows it. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Whether the process is still running. */
  get alive(): boolean {
    return this.exitValue === undefined;
  }

  /** Settles when the process exits. */
  get exited(): Promise<{ exitCode: number | null; signal: string | null }> {
    return this.process.exited;
  }

  /** Whether it exited without being asked to. */
  get crashed(): boolean {
    return this.exitValue !== undefined && !this.stopping;
  }

  /** Sends a request; rejects with LanguageServerFailedError on failure, timeout or exit. */
  async request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    if (!this.alive) throw this.stoppedError();
    const source = new CancellationTokenSource();
    // The server is told to cancel; the caller does not wait for it to agree.
    let onAbort = (): void => source.cancel();
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        source.cancel();
        reject(new Error("the request was aborted"));
      };
    });
    aborted.catch(() => {});
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await raceExit(
        Promise.race([this.connection.sendRequest<R>(method, params, source.token), aborted]),
        this.onExit,
        this.timeouts.requestMs,
        method,
      );
    } catch (error) {
      if (!this.alive) throw this.stoppedError();
      throw new LanguageServerFailedError(this.server.id, this.root, `${method} failed: ${describe(error)}`, {
        cause: error,
      });
    } finally {
      signal?.removeEventListener("abort", onAbort);
      source.dispose();
    }
  }

  /**
   * Shows the server a file's current text: didOpen the first time, didChange when it changed.
   * Resolves true when it told the server something new.
   */
  async sync(absolutePath: string, text: string): Promise<boolean> {
    if (!this.alive) throw this.stoppedError();
    const uri = uriOf(absolutePath);
    const open = this.documents.get(uri);
    if (!open) {
      this.documents.set(uri, { version: 1, text });
      await this.connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: languageIdOf(this.server, absolutePath), version: 1, text },
      });
      return true;
    }
    if (open.text === text) return false;
    open.version++;
    open.text = text;
    await this.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: open.version },
      contentChanges: [{ text }],
    });
    return true;
  }

  /** Whether the file has been shown to the server. */
  isOpen(absolutePath: string): boolean {
    return this.documents.has(uriOf(absolutePath));
  }

  /** Absolute paths of the documents shown to the server. */
  openPaths(): string[] {
    return [...this.documents.keys()].map((uri) => decodeURIComponent(new URL(uri).pathname));
  }

  /** The latest published diagnostics for a file, if any, and their sequence number. */
  diagnosticsFor(absolutePath: string): { diagnostics: readonly Diagnostic[]; sequence: number } | undefined {
    const entry = this.diagnostics.get(uriOf(absolutePath));
    return entry && { diagnostics: entry.diagnostics, sequence: entry.sequence };
  }

  /**
   * Asks the server for a file's diagnostics on the text it was last shown, where it can answer
   * (LSP pull diagnostics, or tsserver through typescript-language-server); undefined where it
   * only publishes them. What it answers is kept as the file's latest diagnostics.
   */
  async pullDiagnostics(
    absolutePath: string,
    signal?: AbortSignal,
  ): Promise<readonly Diagnostic[] | undefined> {
    const uri = uriOf(absolutePath);
    let found: Diagnostic[] | undefined;
    if (this.capabilities.diagnosticProvider) {
      const report = await this.request<{ kind: string; items?: Diagnostic[] }>(
        "textDocument/diagnostic",
        { textDocument: { uri } },
        signal,
      );
      if (report.kind !== "full") return this.diagnostics.get(uri)?.diagnostics;
      found = report.items ?? [];
    } else if (this.capabilities.executeCommandProvider?.commands.includes(TSSERVER_REQUEST_COMMAND)) {
      const ask = (command: string) =>
        this.request<unknown>(
          "workspace/executeCommand",
          { command: TSSERVER_REQUEST_COMMAND, arguments: [command, { file: absolutePath }] },
          signal,
        );
      const [syntactic, semantic] = await Promise.all([
        ask("syntacticDiagnosticsSync"),
        ask("semanticDiagnosticsSync"),
      ]);
      const a = tsserverBody(syntactic);
      const b = tsserverBody(semantic);
      if (!a || !b) return undefined;
      found = fromTsserver([...a, ...b]);
    } else {
      return undefined;
    }
    this.diagnostics.set(uri, {
      diagnostics: found,
      version: this.documents.get(uri)?.version,
      sequence: ++this.sequence,
    });
    return found;
  }

  /** The current publication sequence number (to wait for one newer than it). */
  get diagnosticsSequence(): number {
    return this.sequence;
  }

  /**
   * Waits until the server publishes diagnostics for the file's current version (or, when it does
   * not say versions, any after `after`), then a short quiet spell for follow-ups; gives up at
   * `timeoutMs`. Resolves with what is known then, possibly nothing.
   */
  async waitForDiagnostics(
    absolutePath: string,
    after: number,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<readonly Diagnostic[] | undefined> {
    const uri = uriOf(absolutePath);
    const fresh = (): boolean => {
      const entry = this.diagnostics.get(uri);
      if (!entry || entry.sequence <= after) return false;
      const version = this.documents.get(uri)?.version;
      return entry.version === undefined || version === undefined || entry.version >= version;
    };
    const deadline = Date.now() + timeoutMs;
    await this.waitUntil(fresh, deadline, signal);
    if (fresh()) {
      // Servers often publish syntax errors first and type errors a moment later.
      const seen = this.diagnostics.get(uri)!.sequence;
      await this.waitUntil(
        () => (this.diagnostics.get(uri)?.sequence ?? 0) > seen,
        Math.min(deadline, Date.now() + 50),
        signal,
      );
    }
    return this.diagnostics.get(uri)?.diagnostics;
  }

  private waitUntil(done: () => boolean, deadline: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        this.waiters.delete(check);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const check = (): void => {
        if (done() || !this.alive || signal?.aborted) finish();
      };
      this.waiters.add(check);
      signal?.addEventListener("abort", finish, { once: true });
      timer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      check();
    });
  }

  /** Asks the server to shut down and exit; kills it if it does not within a second. */
  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.alive) {
      try {
        await raceExit(this.connection.sendRequest("shutdown"), this.onExit, 1000, "shutdown");
        await this.connection.sendNotification("exit");
      } catch {
        // It is killed below either way.
      }
      const gone = await Promise.race([
        this.process.exited.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref()),
      ]);
      if (!gone) this.process.kill();
    }
    this.connection.dispose();
  }

  private stoppedError(): LanguageServerFailedError {
    const exit = this.exitValue;
    const how = exit?.signal
      ? `was killed by ${exit.signal}`
      : `exited with code ${exit?.exitCode ?? "unknown"}`;
    const tail = this.stderrTail.join("").trim().split("\n").slice(-3).join("\n");
    return new LanguageServerFailedError(
      this.server.id,
      this.root,
      `The ${this.server.id} language server ${how}.${tail ? `\n${tail}` : ""}`,
    );
  }
}

type ExitListener = (exit: { exitCode: number | null; signal: string | null }) => void;

/** Subscribes to a process's exit; returns the unsubscribe function. */
type OnExit = (listener: ExitListener) => () => void;

/** Exit listeners on one set, so pending requests do not pile closures on the exit promise. */
function exitListeners(proc: LongLivedProcess): OnExit {
  const listeners = new Set<ExitListener>();
  let exited: Parameters<ExitListener>[0] | undefined;
  void proc.exited.then((exit) => {
    exited = exit;
    for (const l of [...listeners]) l(exit);
  });
  return (listener) => {
    if (exited) {
      listener(exited);
      return () => {};
    }
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
}

/** The promise's value, unless the process exits or the time runs out first. */
function raceExit<T>(promise: Promise<T>, onExit: OnExit, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let unsubscribe = (): void => {};
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no answer to ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    unsubscribe = onExit((exit) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${exit.signal ?? `code ${exit.exitCode}`})`));
    });
    promise.then(
      (value) => {
        clearTimeout(timer);
        unsubscribe();
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        unsubscribe();
        reject(error);
      },
    );
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
