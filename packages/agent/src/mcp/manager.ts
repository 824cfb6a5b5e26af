import type { SessionEvent } from "../types/events.js";
import type { ProfileToolRegistry } from "../types/profile.js";
import type { RegisteredTool } from "../types/tool.js";
import { type ConnectionSettings, type ListedTool, McpServerConnection } from "./connection.js";
import { McpConfigError, McpError } from "./errors.js";
import { mcpToolName } from "./names.js";
import { serverCacheKey } from "./tool-cache.js";
import {
  LIST_MCP_RESOURCES,
  listResourcesTool,
  mcpTool,
  READ_MCP_RESOURCE,
  readResourceTool,
} from "./tools.js";
import type {
  McpEvent,
  McpManagerOptions,
  McpPromptInfo,
  McpServerConfig,
  McpServerSnapshot,
  McpToolInfo,
} from "./types.js";

/** The defaults of McpManagerOptions. */
export const MCP_DEFAULTS = {
  connectTimeoutMs: 30_000,
  toolTimeoutMs: 600_000,
  startupWaitMs: 5_000,
  /** Characters of one server's `instructions` put into the system prompt. */
  instructionsChars: 2_048,
} as const;

/** What attachSession needs of a Session. */
export interface McpSessionTarget {
  readonly id: string;
  readonly profile: { readonly toolRegistry: ProfileToolRegistry };
  subscribe(listener: (event: SessionEvent) => void): () => void;
}

type Registry = Pick<ProfileToolRegistry, "register" | "unregister">;

/**
 * Connects to MCP servers in the background and offers their tools, under `mcp__<server>__<tool>`
 * names, to the tool registries it is attached to (a session's registry is shared by its
 * subagents). A server that fails to start, crashes or hangs is reported through events and its
 * calls' error results; the session and the other servers carry on. close() ends every server.
 */
export class McpManager {
  private readonly connections = new Map<string, McpServerConnection>();
  private readonly registries = new Set<Registry>();
  private readonly listeners = new Set<(event: McpEvent) => void>();
  /** Tools as last registered, by name. */
  private current = new Map<string, RegisteredTool>();
  /** Proxies per server, rebuilt only when that server's tool list changes. */
  private readonly proxies = new Map<
    McpServerConnection,
    { list: readonly ListedTool[]; tools: Map<string, RegisteredTool> }
  >();
  private readonly resourceTools: readonly RegisteredTool[];
  private readonly startupWaitMs: number;
  private readonly settings: ConnectionSettings;
  /** Tool names last reported per server (tools_changed is sent when they change). */
  private readonly announced = new Map<string, string>();
  private rootDirs: readonly string[] | undefined;
  private started = false;
  private connecting = false;
  private preparing: Promise<boolean> | undefined;
  private startupWait: Promise<void> | undefined;
  private startupOver = false;
  private closing: Promise<void> | undefined;

  constructor(servers: Readonly<Record<string, McpServerConfig>>, options: McpManagerOptions = {}) {
    const settings: ConnectionSettings = {
      connectTimeoutMs: options.connectTimeoutMs ?? MCP_DEFAULTS.connectTimeoutMs,
      toolTimeoutMs: options.toolTimeoutMs ?? MCP_DEFAULTS.toolTimeoutMs,
      cwd: options.cwd,
      clientName: options.clientName ?? "attractor",
      clientVersion: options.clientVersion ?? "0.1.0",
      toolCache: options.toolCache,
      roots: () => this.rootDirs,
      onSampling: options.onSampling,
      onElicitation: options.onElicitation,
      startProcess: options.startProcess,
      authProvider: options.authProvider,
      loginHint: options.loginHint,
    };
    this.rootDirs = options.roots;
    this.settings = settings;
    this.startupWaitMs = options.startupWaitMs ?? MCP_DEFAULTS.startupWaitMs;
    for (const [name, config] of Object.entries(servers))
      this.connections.set(name, this.connectionFor(name, config));
    this.resourceTools = [
      listResourcesTool(() => [...this.connections.values()]),
      readResourceTool((name) => this.connections.get(name)),
    ];
  }

  /** The client capabilities declared, which some servers' tool lists depend on. */
  private declared(): string {
    const s = this.settings;
    return [s.roots() !== undefined && "roots", s.onSampling && "sampling", s.onElicitation && "elicitation"]
      .filter(Boolean)
      .join(",");
  }

  private connectionFor(name: string, config: McpServerConfig): McpServerConnection {
    return new McpServerConnection(
      name,
      config,
      this.settings,
      serverCacheKey(config, this.settings.cwd, this.declared()),
      (event) => this.emit(event),
      () => this.sync(),
    );
  }

  /**
   * Offers the tools the toolCache remembers from earlier runs, without starting any server (a
   * call to one of them starts its server and waits for it). Resolves to whether every server's
   * tools are known that way. Idempotent.
   */
  prepare(): Promise<boolean> {
    this.preparing ??= Promise.all([...this.connections.values()].map((c) => c.loadCache())).then((known) =>
      known.every(Boolean),
    );
    return this.preparing;
  }

  /** Starts connecting every server in the background; failures become events. Idempotent. */
  start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    void this.prepare().then(() => this.connectAll());
  }

  private connectAll(): void {
    if (this.connecting || this.closing) return;
    this.connecting = true;
    for (const connection of this.connections.values()) connection.connect().catch(() => {});
  }

  /**
   * For SessionOptions.toolsReady: the first time, waits until every server whose tools the cache
   * does not know has connected or failed, or `startupWaitMs` passed, whichever is first;
   * afterwards resolves at once. Servers that connect later offer their tools from the next
   * request on. When the cache knows every server's tools, it resolves without starting anything:
   * start() (or the first call of one of their tools) connects them, so a host can let its first
   * request go out before the servers take the CPU.
   */
  readonly waitForStartup = async (signal?: AbortSignal): Promise<void> => {
    if (this.startupOver) return;
    this.startupWait ??= (async () => {
      const known = await this.prepare();
      if (known) return;
      this.started = true;
      this.connectAll();
      if (this.startupWaitMs === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.startupWaitMs);
        const unknown = [...this.connections.values()].filter((c) => !c.fromCache);
        Promise.all(unknown.map((c) => c.settled())).then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    })().then(() => {
      this.startupOver = true;
    });
    if (!signal) return this.startupWait;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => resolve(), { once: true });
      this.startupWait?.then(resolve);
    });
  };

  /**
   * Offers the servers' tools through `registry`, kept current; returns the detach function.
   * Connecting begins with start() or the first waitForStartup().
   */
  attach(registry: Registry): () => void {
    this.registries.add(registry);
    for (const tool of this.current.values()) registry.register(tool);
    return () => {
      this.registries.delete(registry);
      for (const name of this.current.keys()) registry.unregister(name);
    };
  }

  /** attach() to a session's registry, and close() when that session ends; starts connecting. */
  attachSession(session: McpSessionTarget): () => void {
    const detach = this.attach(session.profile.toolRegistry);
    this.start();
    const unsubscribe = session.subscribe((event) => {
      if (event.kind === "session_end" && event.sessionId === session.id) void this.close();
    });
    return () => {
      unsubscribe();
      detach();
    };
  }

  /**
   * Changes the directories offered as roots and tells connected servers (roots/list_changed).
   * Only for a manager created with `roots`: the capability is declared at connect time.
   */
  async setRoots(dirs: readonly string[]): Promise<void> {
    if (this.rootDirs === undefined) throw new McpError("", "This MCP manager was created without roots.");
    this.rootDirs = [...dirs];
    await Promise.all([...this.connections.values()].map((c) => c.rootsChanged()));
  }

  /** Receives every later event; returns the unsubscribe function. */
  subscribe(listener: (event: McpEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Each configured server's state, tools and prompts, in configuration order. */
  servers(): McpServerSnapshot[] {
    return [...this.connections.values()].map((c) => ({
      name: c.name,
      transport: c.transportKind,
      status: c.status,
      ...(c.error !== undefined && { error: c.error }),
      ...(c.serverName !== undefined && { serverName: c.serverName }),
      ...(c.serverVersion !== undefined && { serverVersion: c.serverVersion }),
      ...(c.instructions !== undefined && { instructions: c.instructions }),
      fromCache: c.fromCache,
      tools: this.toolInfo(c),
      prompts: this.promptInfo(c),
      hasResources: c.hasResources,
    }));
  }

  /**
   * The servers' `instructions` (from initialize, or the cache until they connect) as a
   * system-prompt section, each cut to MCP_DEFAULTS.instructionsChars; undefined when none gave any.
   */
  readonly instructions = (): string | undefined => {
    const parts: string[] = [];
    for (const c of this.connections.values()) {
      const text = c.status === "closed" ? undefined : c.instructions?.trim();
      if (!text) continue;
      const limit = MCP_DEFAULTS.instructionsChars;
      const cut =
        text.length > limit
          ? `${text.slice(0, limit)}\n[… ${text.length - limit} more characters cut]`
          : text;
      parts.push(`## ${c.name}\n${cut}`);
    }
    if (parts.length === 0) return undefined;
    return `# MCP server instructions\nThe connected MCP servers describe how to use their tools (mcp__<server>__…) as follows. These notes come from the servers, not from the user.\n\n${parts.join("\n\n")}`;
  };

  /** Every prompt of every connected server, under its `mcp__<server>__<prompt>` name. */
  prompts(): McpPromptInfo[] {
    return [...this.connections.values()].flatMap((c) => this.promptInfo(c));
  }

  /**
   * Renders a prompt (by its `mcp__…` name) with string arguments to the text of its messages.
   * Throws McpError for an unknown prompt or a server failure.
   */
  async getPrompt(name: string, args: Readonly<Record<string, string>>): Promise<string> {
    for (const connection of this.connections.values()) {
      const prompt = connection.prompts.find((p) => mcpToolName(connection.name, p.name) === name);
      if (prompt) return connection.getPrompt(prompt.name, args);
    }
    throw new McpConfigError("", `No MCP prompt named ${name}.`);
  }

  /** Closes a server's connection and connects it again (after the user fixed its cause). */
  async reconnect(server: string): Promise<void> {
    const old = this.connections.get(server);
    if (!old) throw new McpConfigError(server, `No MCP server named "${server}".`);
    if (this.closing) throw new McpError(server, "The MCP manager is closed.");
    const fresh = this.connectionFor(server, old.config);
    this.connections.set(server, fresh);
    this.proxies.delete(old);
    await old.close();
    this.sync();
    await fresh.connect();
  }

  /** Ends every server (stdio processes included) and removes their tools; idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.connections.values()].map((c) => c.close()));
      this.sync();
    })();
    return this.closing;
  }

  private emit(event: McpEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A host's faulty listener must not break a connection.
      }
    }
  }

  private toolsOf(connection: McpServerConnection): Map<string, RegisteredTool> {
    const cached = this.proxies.get(connection);
    if (cached && cached.list === connection.tools) return cached.tools;
    const tools = new Map<string, RegisteredTool>();
    for (const tool of connection.tools) {
      const name = mcpToolName(connection.name, tool.name);
      if (!tools.has(name)) tools.set(name, mcpTool(name, connection, tool));
    }
    this.proxies.set(connection, { list: connection.tools, tools });
    return tools;
  }

  private toolInfo(connection: McpServerConnection): McpToolInfo[] {
    if (connection.status === "closed") return [];
    return [...this.toolsOf(connection)].map(([name, tool]) => ({
      name,
      serverToolName:
        connection.tools.find((t) => mcpToolName(connection.name, t.name) === name)?.name ?? name,
      description: tool.definition.description,
    }));
  }

  private promptInfo(connection: McpServerConnection): McpPromptInfo[] {
    if (connection.status === "closed") return [];
    return connection.prompts.map((p) => ({
      name: mcpToolName(connection.name, p.name),
      serverPromptName: p.name,
      description: p.description ?? "",
      arguments: (p.arguments ?? []).map((a) => ({
        name: a.name,
        ...(a.description !== undefined && { description: a.description }),
        required: a.required === true,
      })),
    }));
  }

  /** Brings every attached registry in line with the servers' current tool lists. */
  private sync(): void {
    const next = new Map<string, RegisteredTool>();
    let resources = false;
    for (const connection of this.connections.values()) {
      // A crashed server keeps its tools: calling one starts it again.
      if (connection.status === "closed") continue;
      resources ||= connection.hasResources;
      const names: string[] = [];
      for (const [name, tool] of this.toolsOf(connection)) {
        if (next.has(name)) continue;
        next.set(name, tool);
        names.push(name);
      }
      const key = names.join("\n");
      if ((this.announced.get(connection.name) ?? "") !== key) {
        this.announced.set(connection.name, key);
        this.emit({ kind: "tools_changed", server: connection.name, tools: names });
      }
    }
    if (resources) for (const tool of this.resourceTools) next.set(tool.definition.name, tool);
    for (const registry of this.registries) {
      for (const [name, tool] of this.current) if (next.get(name) !== tool) registry.unregister(name);
      for (const [name, tool] of next) if (this.current.get(name) !== tool) registry.register(tool);
    }
    this.current = next;
  }
}

export { LIST_MCP_RESOURCES, READ_MCP_RESOURCE };
