import type { Diagnostic } from "vscode-languageserver-protocol";
import type { AfterToolCallHook, ToolCallInfo } from "../types/config.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { RegisteredTool, ToolOutput } from "../types/tool.js";
import { CodeIntelligenceError } from "./errors.js";
import { diagnosticMessage, formatDiagnostic } from "./format.js";
import { findWorkspaceRoot } from "./locate.js";
import { LanguageServerPool, type LanguageServerStatus } from "./manager.js";
import { extensionOf, type LanguageServerConfig, mergeServerConfigs, serverFor } from "./servers.js";
import { createCodeIntelligenceTools } from "./tools.js";

/** Defaults: diagnostics wait after an edit, a server's start-up and any request. */
export const DEFAULT_DIAGNOSTICS_WAIT_MS = 1500;
export const DEFAULT_SERVER_START_TIMEOUT_MS = 30_000;
// Generous: the first request of a large project waits for the whole project to load.
export const DEFAULT_LSP_REQUEST_TIMEOUT_MS = 120_000;
/** Errors appended to an edit's result at most. */
const MAX_APPENDED_DIAGNOSTICS = 20;

/** Tools whose results get the new errors of the files they changed. */
const EDITING_TOOLS = new Set(["edit_file", "write_file", "apply_patch"]);
/** Tools whose reads are passed on to servers already running for the file. */
const READING_TOOLS = new Set(["read_file"]);

export interface CodeIntelligenceOptions {
  /** Where the files are and where the servers run (needs startProcess). */
  readonly environment: ExecutionEnvironment;
  /** Servers besides the built-in ones; one with a built-in's id replaces it. */
  readonly servers?: readonly LanguageServerConfig[];
  /** False leaves the built-in TypeScript and Python servers out. */
  readonly builtinServers?: boolean;
  /** How long an edit waits for the server's errors before its result is returned (1500 ms); 0 turns it off. */
  readonly diagnosticsWaitMs?: number;
  readonly startTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /**
   * Whether the project is trusted (the host decides). Until it is, servers and the TypeScript
   * they load come from PATH or settings, never from inside the project: false by default.
   */
  readonly projectTrusted?: boolean;
}

/**
 * Code intelligence for a session: the nine language-server tools, errors appended to edits, and
 * the servers' life cycle. Creating it loads nothing and starts nothing; servers start on first use.
 */
export class CodeIntelligence {
  readonly environment: ExecutionEnvironment;
  private readonly pool: LanguageServerPool;
  private readonly diagnosticsWaitMs: number;
  private readonly touched = new Set<string>();
  private availability: Promise<LanguageServerConfig[]> | undefined;
  private toolList: RegisteredTool[] | undefined;
  private stopped: Promise<void> | undefined;

  constructor(options: CodeIntelligenceOptions) {
    this.environment = options.environment;
    const servers =
      options.builtinServers === false ? [...(options.servers ?? [])] : mergeServerConfigs(options.servers);
    this.pool = new LanguageServerPool(
      options.environment,
      servers,
      {
        startMs: options.startTimeoutMs ?? DEFAULT_SERVER_START_TIMEOUT_MS,
        requestMs: options.requestTimeoutMs ?? DEFAULT_LSP_REQUEST_TIMEOUT_MS,
      },
      { trusted: options.projectTrusted === true },
    );
    this.diagnosticsWaitMs = options.diagnosticsWaitMs ?? DEFAULT_DIAGNOSTICS_WAIT_MS;
  }

  /**
   * The configured servers usable in this project: the environment can run programs, the server's
   * program is found, and the project has its root marker or files it covers near the top.
   * Checked once; starts nothing.
   */
  availableServers(): Promise<LanguageServerConfig[]> {
    this.availability ??= this.detect();
    return this.availability;
  }

  /** Whether any server is usable in this project. */
  async available(): Promise<boolean> {
    return (await this.availableServers()).length > 0;
  }

  /** The nine tools (offer them only when available() is true). */
  tools(): RegisteredTool[] {
    this.toolList ??= createCodeIntelligenceTools({
      env: this.environment,
      pool: this.pool,
      touched: this.touched,
      diagnosticsTimeoutMs: Math.max(5000, this.diagnosticsWaitMs),
      availableServers: () => this.availableServers(),
    });
    return this.toolList;
  }

  /** Registers the tools on a registry when a server is available; resolves whether it did. */
  async install(registry: { register(tool: RegisteredTool): void }): Promise<boolean> {
    if (!(await this.available())) return false;
    for (const tool of this.tools()) registry.register(tool);
    return true;
  }

  /**
   * An afterToolCall hook: after edit_file, write_file or apply_patch, shows the changed files to
   * their servers and appends the errors reported within the wait; after read_file, passes the
   * text on to a server already running for it. Chains to `next` first when given.
   */
  afterToolCall(next?: AfterToolCallHook): AfterToolCallHook {
    return async (call, result) => {
      const base = (await next?.(call, result)) ?? result;
      if (base.isError) return next ? base : undefined;
      if (READING_TOOLS.has(call.toolName)) {
        await this.passOnRead(call).catch(() => {});
        return next ? base : undefined;
      }
      if (!EDITING_TOOLS.has(call.toolName) || this.diagnosticsWaitMs <= 0) return next ? base : undefined;
      const appended = await this.errorsAfterEdit(call, base).catch(() => "");
      if (appended === "") return next ? base : undefined;
      return { ...base, output: `${base.output}\n\n${appended}` };
    };
  }

  /** Shuts the servers down when the session ends. */
  closeWith(session: { subscribe(listener: (event: { readonly kind: string }) => void): () => void }): void {
    const unsubscribe = session.subscribe((event) => {
      if (event.kind !== "session_end") return;
      unsubscribe();
      void this.shutdown();
    });
  }

  /** States of the servers started so far. */
  status(): LanguageServerStatus[] {
    return this.pool.status();
  }

  /** Stops every server (once; later calls wait for the same); the tools answer with an error afterwards. */
  shutdown(): Promise<void> {
    this.stopped ??= this.pool.shutdown();
    return this.stopped;
  }

  private async detect(): Promise<LanguageServerConfig[]> {
    const env = this.environment;
    if (!env.startProcess) return [];
    const wd = env.workingDirectory();
    const top = await env.listDirectory(wd, 2).catch(() => []);
    const found: LanguageServerConfig[] = [];
    for (const server of this.pool.configs) {
      const covers = top.some((e) => !e.isDir && server.extensions.includes(extensionOf(e.name)));
      let marked = false;
      if (!covers) {
        for (const marker of server.rootMarkers ?? []) {
          if (top.some((e) => e.path === marker)) {
            marked = true;
            break;
          }
        }
      }
      if (!covers && !marked) continue;
      const root = await findWorkspaceRoot(env, server, `${wd}/_`);
      if (await this.pool.command(server, root)) found.push(server);
    }
    return found;
  }

  private changedPaths(call: ToolCallInfo, result: ToolOutput): string[] {
    const d = result.details ?? {};
    const listed = Array.isArray(d.paths)
      ? d.paths.filter((p): p is string => typeof p === "string")
      : typeof d.path === "string"
        ? [d.path]
        : typeof call.arguments.file_path === "string"
          ? [call.arguments.file_path]
          : [];
    return [...new Set(listed.map((p) => this.environment.resolvePath(p)))];
  }

  private async errorsAfterEdit(call: ToolCallInfo, result: ToolOutput): Promise<string> {
    const files = this.changedPaths(call, result).filter(
      (f) => serverFor(this.pool.configs, f) !== undefined,
    );
    if (files.length === 0 || !(await this.available())) return "";
    const deadline = Date.now() + this.diagnosticsWaitMs;
    const lines: string[] = [];
    for (const abs of files) {
      const text = await this.environment.readFile(abs).catch(() => undefined);
      if (text === undefined) continue;
      // The whole wait is bounded, a server's start included: one that is still starting goes on
      // in the background and reports on the next edit.
      const work = this.newErrors(abs, text, deadline).catch((): Diagnostic[] => []);
      const found = await withDeadline(work, deadline);
      for (const d of found ?? []) lines.push(formatDiagnostic(this.environment, abs, d));
    }
    if (lines.length === 0) return "";
    const shown = lines.slice(0, MAX_APPENDED_DIAGNOSTICS);
    if (lines.length > shown.length) shown.push(`… and ${lines.length - shown.length} more`);
    return `The language server reports ${lines.length === 1 ? "a new error" : `${lines.length} new errors`} after this change:\n${shown.join("\n")}`;
  }

  /** Errors in a file after it changed that were not there before. */
  private async newErrors(abs: string, text: string, deadline: number): Promise<Diagnostic[]> {
    try {
      return await this.pool.withClient(abs, async (client) => {
        const before = client.diagnosticsFor(abs)?.diagnostics ?? [];
        const sequence = client.diagnosticsSequence;
        await client.sync(abs, text);
        this.touched.add(abs);
        const after =
          (await client.pullDiagnostics(abs)) ??
          (await client.waitForDiagnostics(abs, sequence, Math.max(0, deadline - Date.now())));
        // Only errors that were not there before the edit: the model should see what it broke.
        const old = new Map<string, number>();
        for (const d of before) {
          if ((d.severity ?? 1) === 1)
            old.set(diagnosticMessage(d), (old.get(diagnosticMessage(d)) ?? 0) + 1);
        }
        return (after ?? []).filter((d) => {
          if ((d.severity ?? 1) !== 1) return false;
          const n = old.get(diagnosticMessage(d)) ?? 0;
          if (n > 0) old.set(diagnosticMessage(d), n - 1);
          return n === 0;
        });
      });
    } catch (error) {
      if (error instanceof CodeIntelligenceError) return [];
      throw error;
    }
  }

  private async passOnRead(call: ToolCallInfo): Promise<void> {
    const path = call.arguments.file_path ?? call.arguments.path;
    if (typeof path !== "string") return;
    const abs = this.environment.resolvePath(path);
    const client = await this.pool.runningFor(abs);
    if (!client) return;
    const text = await this.environment.readFile(abs);
    await client.sync(abs, text);
  }
}

/** The promise's value, or undefined once the deadline (a Date.now() time) has passed. */
function withDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
