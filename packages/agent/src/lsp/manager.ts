import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { ClientTimeouts, LanguageServerClient } from "./client.js";
import { LanguageServerFailedError, NoLanguageServerError } from "./errors.js";
import {
  findUpwards,
  findWorkspaceRoot,
  insideProject,
  resolveServerCommand,
  type ServerLookup,
} from "./locate.js";
import { extensionOf, type LanguageServerConfig, serverFor, TYPESCRIPT_SERVER } from "./servers.js";

/** Where one server runs for a file: its configuration, workspace root and program. */
export interface ServerTarget {
  readonly server: LanguageServerConfig;
  readonly root: string;
  readonly command: string;
}

/** A language server's state, for hosts and tests. */
export interface LanguageServerStatus {
  readonly id: string;
  readonly root: string;
  readonly state: "starting" | "running" | "stopped" | "failed";
  readonly pid?: number;
  /** Times it was restarted after stopping on its own (at most once). */
  readonly restarts: number;
  readonly error?: string;
}

interface Entry {
  readonly target: ServerTarget;
  starting?: Promise<LanguageServerClient>;
  client?: LanguageServerClient;
  restarts: number;
  failure?: LanguageServerFailedError;
  /** Stops a start in progress. */
  abort?: AbortController;
}

/**
 * The language servers of one environment: started lazily, one per server and workspace root,
 * restarted once when one stops on its own, shut down together. The protocol library is loaded
 * with the first server.
 */
export class LanguageServerPool {
  private readonly env: ExecutionEnvironment;
  private readonly servers: readonly LanguageServerConfig[];
  private readonly timeouts: ClientTimeouts;
  private readonly entries = new Map<string, Entry>();
  private readonly commands = new Map<string, Promise<string | undefined>>();
  private closed = false;

  private readonly lookup: ServerLookup;

  constructor(
    env: ExecutionEnvironment,
    servers: readonly LanguageServerConfig[],
    timeouts: ClientTimeouts,
    lookup: ServerLookup = { trusted: false },
  ) {
    this.env = env;
    this.servers = servers;
    this.timeouts = timeouts;
    this.lookup = lookup;
  }

  /** The configured servers. */
  get configs(): readonly LanguageServerConfig[] {
    return this.servers;
  }

  /** The server's program as found from `from`, looked up once per server. */
  command(server: LanguageServerConfig, from: string): Promise<string | undefined> {
    const key = `${server.id}\0${from}`;
    let found = this.commands.get(key);
    if (!found) {
      found = resolveServerCommand(this.env, server.command, from, this.lookup);
      this.commands.set(key, found);
    }
    return found;
  }

  /** Which server, root and program serve a file; NoLanguageServerError when none does. */
  async targetFor(absoluteFile: string): Promise<ServerTarget> {
    const server = serverFor(this.servers, absoluteFile);
    const ext = extensionOf(absoluteFile);
    if (!server) throw new NoLanguageServerError(ext);
    const root = await findWorkspaceRoot(this.env, server, absoluteFile);
    const command = await this.command(server, root);
    if (!command) {
      // Say so when the project has its own copy: it is there, but not run before trust.
      const own =
        !this.lookup.trusted && !server.command.includes("/")
          ? await findUpwards(this.env, root, join("node_modules", ".bin", server.command))
          : undefined;
      throw new NoLanguageServerError(
        ext,
        server.id,
        own === undefined
          ? `${server.command} was not found`
          : `${server.command} was not found outside the project; the project's own ${own} is not run because the project is not trusted`,
      );
    }
    return { server, root, command };
  }

  /**
   * The running client for a target, started (or restarted once) as needed. Aborting stops the
   * wait, not a start in progress: the next call finds the server ready.
   */
  async client(target: ServerTarget, signal?: AbortSignal): Promise<LanguageServerClient> {
    if (this.closed)
      throw new LanguageServerFailedError(target.server.id, target.root, "Language servers are shut down.");
    const key = `${target.server.id}\0${target.root}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { target, restarts: 0 };
      this.entries.set(key, entry);
    }
    if (entry.failure) throw entry.failure;
    if (entry.client && !entry.client.alive) {
      const stopped = entry.client;
      entry.client = undefined;
      if (entry.restarts >= 1) {
        entry.failure = new LanguageServerFailedError(
          target.server.id,
          target.root,
          `The ${target.server.id} language server stopped again after a restart, so it is not restarted any more.`,
        );
        throw entry.failure;
      }
      entry.restarts++;
      void stopped.shutdown();
    }
    if (entry.client) return entry.client;
    entry.starting ??= this.start(entry);
    return untilAborted(entry.starting, signal);
  }

  /** Runs `use` with the file's server; a server that stops during the call is restarted and asked again. */
  async withClient<T>(
    absoluteFile: string,
    use: (client: LanguageServerClient) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const target = await this.targetFor(absoluteFile);
    return this.withTarget(target, use, signal);
  }

  /** As withClient, for a known target. */
  async withTarget<T>(
    target: ServerTarget,
    use: (client: LanguageServerClient) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.client(target, signal);
      try {
        return await use(client);
      } catch (error) {
        if (attempt === 0 && client.crashed) continue;
        throw error;
      }
    }
  }

  /** The client already running for a file's server, without starting one. */
  async runningFor(absoluteFile: string): Promise<LanguageServerClient | undefined> {
    const server = serverFor(this.servers, absoluteFile);
    if (!server) return undefined;
    // Finding the root stats each marker in each ancestor directory: not worth it on every read
    // while no client of this server runs (the common case, and every read before the first).
    const prefix = `${server.id}\0`;
    let anyAlive = false;
    for (const [key, entry] of this.entries) {
      if (key.startsWith(prefix) && entry.client?.alive) {
        anyAlive = true;
        break;
      }
    }
    if (!anyAlive) return undefined;
    const root = await findWorkspaceRoot(this.env, server, absoluteFile);
    const client = this.entries.get(`${prefix}${root}`)?.client;
    return client?.alive ? client : undefined;
  }

  /** Every client running now. */
  running(): LanguageServerClient[] {
    return [...this.entries.values()].flatMap((e) => (e.client?.alive ? [e.client] : []));
  }

  /** States of the servers started so far. */
  status(): LanguageServerStatus[] {
    return [...this.entries.values()].map((e) => {
      const base = { id: e.target.server.id, root: e.target.root, restarts: e.restarts };
      if (e.failure) return { ...base, state: "failed", error: e.failure.message };
      if (e.client) {
        const pid = e.client.pid;
        return { ...base, state: e.client.alive ? "running" : "stopped", ...(pid !== undefined && { pid }) };
      }
      return { ...base, state: e.starting ? "starting" : "stopped" };
    });
  }

  /** Shuts every server down; later calls fail. */
  async shutdown(): Promise<void> {
    this.closed = true;
    for (const e of this.entries.values()) e.abort?.abort();
    const clients = await Promise.all(
      [...this.entries.values()].map((e) => e.starting?.catch(() => undefined) ?? e.client),
    );
    await Promise.all(clients.map((c) => c?.shutdown()));
  }

  private async start(entry: Entry): Promise<LanguageServerClient> {
    const { server, root, command } = entry.target;
    entry.abort = new AbortController();
    try {
      const { LanguageServerClient } = await import("./client.js");
      const client = await LanguageServerClient.start(
        this.env,
        server,
        command,
        root,
        this.timeouts,
        await this.initializationOptions(server, root, command),
        entry.abort.signal,
      );
      entry.client = client;
      if (this.closed) void client.shutdown();
      return client;
    } catch (error) {
      entry.failure =
        error instanceof LanguageServerFailedError
          ? error
          : new LanguageServerFailedError(server.id, root, String(error), { cause: error });
      throw entry.failure;
    } finally {
      entry.starting = undefined;
      entry.abort = undefined;
    }
  }

  /** The configured options; for TypeScript, the project's own typescript unless one is set. */
  private async initializationOptions(
    server: LanguageServerConfig,
    root: string,
    command: string,
  ): Promise<unknown> {
    const given = server.initializationOptions;
    if (server.command !== TYPESCRIPT_SERVER.command) return given;
    const options = (given ?? {}) as { tsserver?: { path?: string } };
    if (options.tsserver?.path) return given;
    const relativeTsserver = join("node_modules", "typescript", "lib", "tsserver.js");
    const tsserver = await findUpwards(this.env, root, relativeTsserver);
    if (tsserver === undefined) return given;
    if (this.lookup.trusted || !insideProject(this.env, tsserver))
      return { ...options, tsserver: { ...options.tsserver, path: tsserver } };
    // The server would load the project's own TypeScript (its code runs in the server): the one
    // installed beside the server is named instead, and without one the server does not start.
    const beside = await findUpwards(this.env, dirname(realOrGiven(command)), relativeTsserver);
    if (beside !== undefined && !insideProject(this.env, beside))
      return { ...options, tsserver: { ...options.tsserver, path: beside } };
    throw new LanguageServerFailedError(
      server.id,
      root,
      "The project is not trusted, and the TypeScript language server would load the project's own node_modules/typescript. Install typescript beside typescript-language-server (npm install -g typescript), or trust the project.",
    );
  }
}

/** The promise's value, unless `signal` aborts first (then a plain Error). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error("aborted while the language server was starting"));
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** A program's real path (a global install's bin entry is a symlink into its package), or the path given. */
function realOrGiven(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
