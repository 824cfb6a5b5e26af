import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolOutput } from "../types/tool.js";
import { forgetChild, trackChild } from "./child-processes.js";
import {
  elicitationFields,
  type McpElicitationRequest,
  type McpElicitationResult,
  McpRequestRefused,
  type McpSamplingRequest,
  type McpSamplingResult,
  USER_REJECTED,
} from "./client-requests.js";
import { McpConfigError, McpConnectError, McpError } from "./errors.js";
import { type McpProcessStarter, ProcessTransport } from "./process-transport.js";
import { callResultToOutput, contentToText, type McpCallResult, type McpContent } from "./results.js";
import { loadHttpTransport, loadSdkCore, loadSseTransport, loadStdioTransport } from "./sdk.js";
import type { McpCachedServer, McpToolCache } from "./tool-cache.js";
import type { McpEvent, McpRemoteServerConfig, McpServerConfig, McpServerStatus } from "./types.js";

/** Whether a configuration names a remote (HTTP or SSE) server. */
export function isRemote(config: McpServerConfig): config is McpRemoteServerConfig {
  return config.type === "http" || config.type === "sse";
}

/** A tool as the server listed it. */
export interface ListedTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations?: { readonly readOnlyHint?: boolean; readonly title?: string };
}

/** A prompt as the server listed it. */
export interface ListedPrompt {
  readonly name: string;
  readonly description?: string;
  readonly arguments?: readonly {
    readonly name: string;
    readonly description?: string;
    readonly required?: boolean;
  }[];
}

/** A resource as the server listed it. */
export interface ListedResource {
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** Settings a connection runs with (the manager's options, resolved). */
export interface ConnectionSettings {
  readonly connectTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly cwd: string | undefined;
  readonly clientName: string;
  readonly clientVersion: string;
  /** Where tool lists are remembered between runs. */
  readonly toolCache: McpToolCache | undefined;
  /** The directories offered as roots; none offered when undefined. */
  readonly roots: () => readonly string[] | undefined;
  readonly onSampling:
    | ((request: McpSamplingRequest, signal: AbortSignal) => Promise<McpSamplingResult>)
    | undefined;
  readonly onElicitation:
    | ((request: McpElicitationRequest, signal: AbortSignal) => Promise<McpElicitationResult>)
    | undefined;
  /** The OAuth client of a remote server that needs one. */
  readonly authProvider:
    | ((server: string, config: McpRemoteServerConfig) => Promise<OAuthClientProvider | undefined>)
    | undefined;
  /** Appended to the message of a server that needs a login (how to log in). */
  readonly loginHint: ((server: string) => string) | undefined;
  /** Starts stdio servers' processes (in a sandbox); the SDK's stdio transport when undefined. */
  readonly startProcess: McpProcessStarter | undefined;
}

/** Per-call context for a tool call. */
export interface CallContext {
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((line: string) => void) | undefined;
}

// JSON-RPC error codes the SDK raises locally (see the protocol's ErrorCode).
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;
/** Pages read at most from a paginated list, against a server whose cursor never ends. */
const MAX_PAGES = 100;
const STDERR_LINES = 20;

/** Whether a remote server refused us for want of authorization (401, or the SDK's login request). */
const unauthorized = (error: unknown): boolean =>
  (error as Error | undefined)?.name === "UnauthorizedError" ||
  codeOf(error) === 401 ||
  /\b401\b|unauthorized/i.test(describe(error));

/** "500 ms", "30 s": how a timeout reads in messages. */
const duration = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const codeOf = (error: unknown): number | undefined =>
  typeof (error as { code?: unknown })?.code === "number" ? (error as { code: number }).code : undefined;

/**
 * One MCP server: starts it (or opens the HTTP session), runs `initialize`, keeps its tool and
 * prompt lists current (list_changed), runs calls with timeouts, progress and cancellation, and
 * starts a stdio server again on the next use after it crashed.
 */
export class McpServerConnection {
  private statusValue: McpServerStatus = "pending";
  private errorValue: string | undefined;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private opening: Promise<Client> | undefined;
  private everConnected = false;
  private closed = false;
  private pid: number | undefined;
  private readonly stderr: string[] = [];
  tools: readonly ListedTool[] = [];
  prompts: readonly ListedPrompt[] = [];
  hasResources = false;
  serverName: string | undefined;
  serverVersion: string | undefined;
  /** The server's `instructions` from initialize (or the cache). */
  instructions: string | undefined;
  /** Whether the lists above come from the cache and the server has not connected yet. */
  fromCache = false;
  /** The cache entry as last read or written (JSON), to write only what changed. */
  private cachedText: string | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly settings: ConnectionSettings,
    /** The tool cache's key for this server (serverCacheKey). */
    private readonly cacheKey: string,
    private readonly report: (event: McpEvent) => void,
    /** Called after the tool or prompt list changed (a connect, a list_changed notification). */
    private readonly onListsChanged: () => void,
  ) {}

  /**
   * Offers what the server offered last time, until it connects: its tools can be offered to the
   * model at once, and a call to one waits for the connection. Ignored once connected.
   */
  async loadCache(): Promise<boolean> {
    const cache = this.settings.toolCache;
    if (!cache || this.config.type === "sdk") return false;
    const entry = await cache.get(this.cacheKey).catch(() => undefined);
    if (!entry || this.everConnected || this.closed || this.statusValue === "failed") return false;
    this.cachedText = JSON.stringify(entry);
    this.tools = entry.tools as unknown as ListedTool[];
    this.prompts = entry.prompts as unknown as ListedPrompt[];
    this.hasResources = entry.hasResources;
    this.serverName = entry.serverName;
    this.serverVersion = entry.serverVersion;
    this.instructions = entry.instructions;
    this.fromCache = true;
    this.onListsChanged();
    return true;
  }

  /** Writes the lists the server gave to the cache, when they differ from its entry. */
  private remember(): void {
    const cache = this.settings.toolCache;
    if (!cache || this.config.type === "sdk") return;
    const entry: McpCachedServer = {
      ...(this.serverName !== undefined && { serverName: this.serverName }),
      ...(this.serverVersion !== undefined && { serverVersion: this.serverVersion }),
      tools: this.tools as unknown as Readonly<Record<string, unknown>>[],
      prompts: this.prompts as unknown as Readonly<Record<string, unknown>>[],
      hasResources: this.hasResources,
      ...(this.instructions !== undefined && { instructions: this.instructions }),
    };
    const text = JSON.stringify(entry);
    if (text === this.cachedText) return;
    this.cachedText = text;
    void cache.set(this.cacheKey, entry).catch(() => {});
  }

  get status(): McpServerStatus {
    return this.statusValue;
  }

  get error(): string | undefined {
    return this.errorValue;
  }

  get transportKind(): "stdio" | "http" | "sse" | "sdk" {
    return isRemote(this.config) || this.config.type === "sdk" ? this.config.type : "stdio";
  }

  /** Connects unless connected or connecting; resolves once usable, rejects with McpConnectError. */
  connect(): Promise<Client> {
    if (this.closed) return Promise.reject(new McpError(this.name, `MCP server "${this.name}" is closed.`));
    if (this.client) return Promise.resolve(this.client);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Resolves when the connection attempt in progress (if any) has settled. */
  async settled(): Promise<void> {
    await this.opening?.catch(() => {});
  }

  /**
   * The client to send a request with: the current one, the one being connected, or for a server
   * that crashed after it had worked, a fresh start. A server that never came up stays failed.
   */
  private usable(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.opening) return this.opening;
    if (this.statusValue === "failed" && !this.everConnected) {
      return Promise.reject(
        new McpConnectError(
          this.name,
          `MCP server "${this.name}" is not available: ${this.errorValue ?? "it failed to start"}`,
        ),
      );
    }
    return this.connect();
  }

  private setStatus(status: McpServerStatus, error?: string): void {
    this.statusValue = status;
    this.errorValue = error;
    this.report({ kind: "server_status", server: this.name, status, ...(error !== undefined && { error }) });
  }

  private stderrHint(): string {
    return this.stderr.length > 0
      ? `\nLast lines the server wrote to stderr:\n${this.stderr.join("\n")}`
      : "";
  }

  private async createTransport(): Promise<Transport> {
    if (this.config.type === "sdk") return this.config.openTransport();
    if (isRemote(this.config)) {
      const config = this.config;
      let url: URL;
      try {
        url = new URL(config.url);
      } catch {
        throw new McpConfigError(this.name, `MCP server "${this.name}" has an invalid URL: ${config.url}`);
      }
      const authProvider = await this.settings.authProvider?.(this.name, config);
      const options = {
        ...(config.headers && { requestInit: { headers: { ...config.headers } } }),
        ...(authProvider !== undefined && { authProvider }),
      };
      if (config.type === "http") {
        const { StreamableHTTPClientTransport } = await loadHttpTransport();
        return new StreamableHTTPClientTransport(url, options);
      }
      const { SSEClientTransport } = await loadSseTransport();
      return new SSEClientTransport(url, options);
    }
    const config = this.config;
    if (typeof config.command !== "string" || config.command.trim() === "")
      throw new McpConfigError(this.name, `MCP server "${this.name}" has no command to run.`);
    const cwd = config.cwd ?? this.settings.cwd;
    let partial = "";
    const onStderr = (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() === "") continue;
        this.stderr.push(line);
        if (this.stderr.length > STDERR_LINES) this.stderr.shift();
        this.report({ kind: "server_log", server: this.name, line });
      }
    };
    const start = this.settings.startProcess;
    if (start !== undefined)
      return new ProcessTransport(
        () =>
          start(config.command, config.args ?? [], {
            ...(cwd !== undefined && { workingDir: cwd }),
            ...(config.env !== undefined && { env: config.env }),
          }),
        onStderr,
      );
    const { StdioClientTransport } = await loadStdioTransport();
    const transport = new StdioClientTransport({
      command: config.command,
      args: [...(config.args ?? [])],
      ...(config.env !== undefined && { env: { ...config.env } }),
      ...(cwd !== undefined && { cwd }),
      // Piped, not inherited: a server's log must not write over a terminal UI.
      stderr: "pipe",
    });
    transport.stderr?.on("data", onStderr);
    return transport;
  }

  private async open(): Promise<Client> {
    this.setStatus("connecting");
    this.stderr.length = 0;
    let transport: Transport | undefined;
    let client: Client | undefined;
    try {
      // The SDK's core and the transport's module load side by side.
      const [{ client: clientModule, types }, created] = await Promise.all([
        loadSdkCore(),
        this.createTransport(),
      ]);
      transport = created;
      const { roots, onSampling, onElicitation } = this.settings;
      client = new clientModule.Client(
        { name: this.settings.clientName, version: this.settings.clientVersion },
        {
          capabilities: {
            ...(roots() !== undefined && { roots: { listChanged: true } }),
            ...(onSampling !== undefined && { sampling: {} }),
            ...(onElicitation !== undefined && { elicitation: { form: {} } }),
          },
        },
      );
      const self = client;
      if (roots() !== undefined)
        client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
          roots: (roots() ?? []).map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) || dir })),
        }));
      if (onSampling !== undefined)
        client.setRequestHandler(types.CreateMessageRequestSchema, async (request, extra) => {
          const p = request.params;
          try {
            const result = await onSampling(
              {
                server: this.name,
                messages: p.messages as unknown as McpSamplingRequest["messages"],
                ...(p.systemPrompt !== undefined && { systemPrompt: p.systemPrompt }),
                maxTokens: p.maxTokens,
                ...(p.temperature !== undefined && { temperature: p.temperature }),
                ...(p.stopSequences !== undefined && { stopSequences: p.stopSequences }),
                ...(p.modelPreferences?.hints !== undefined && {
                  modelHints: p.modelPreferences.hints.flatMap((h) => (h.name ? [h.name] : [])),
                }),
              },
              extra.signal,
            );
            return {
              role: "assistant" as const,
              content: { type: "text" as const, text: result.text },
              model: result.model,
              ...(result.stopReason !== undefined && { stopReason: result.stopReason }),
            };
          } catch (error) {
            if (error instanceof McpRequestRefused) throw new types.McpError(USER_REJECTED, error.message);
            throw error;
          }
        });
      if (onElicitation !== undefined)
        client.setRequestHandler(types.ElicitRequestSchema, async (request, extra) => {
          const p = request.params as {
            mode?: string;
            message: string;
            requestedSchema?: Record<string, unknown>;
          };
          // Only forms are offered (no URL mode); anything else is declined.
          if (p.mode !== undefined && p.mode !== "form") return { action: "decline" as const };
          let fields: ReturnType<typeof elicitationFields>;
          try {
            fields = elicitationFields(p.requestedSchema ?? {});
          } catch {
            return { action: "decline" as const };
          }
          const answer = await onElicitation({ server: this.name, message: p.message, fields }, extra.signal);
          return answer.action === "accept"
            ? { action: "accept" as const, content: { ...answer.content } as Record<string, string> }
            : { action: answer.action };
        });
      client.onclose = () => this.lost(self);
      // Transport errors reach the caller through the failed request; nothing to do here.
      client.onerror = () => {};
      client.setNotificationHandler(types.ToolListChangedNotificationSchema, async () => {
        if (this.client === self) await this.refreshTools(self).catch(() => {});
      });
      client.setNotificationHandler(types.PromptListChangedNotificationSchema, async () => {
        if (this.client === self) await this.refreshPrompts(self).catch(() => {});
      });
      await client.connect(transport, { timeout: this.settings.connectTimeoutMs });
      const pid = (transport as { pid?: number | null }).pid;
      if (typeof pid === "number") {
        this.pid = pid;
        trackChild(pid);
      }
      const capabilities = client.getServerCapabilities() ?? {};
      const version = client.getServerVersion();
      const [tools, prompts] = await Promise.all([
        capabilities.tools ? this.listTools(client) : [],
        capabilities.prompts ? this.listPrompts(client) : [],
      ]);
      this.serverName = version?.name;
      this.serverVersion = version?.version;
      this.instructions = client.getInstructions();
      this.hasResources = capabilities.resources !== undefined;
      this.tools = tools;
      this.prompts = prompts;
    } catch (error) {
      await this.dispose(client, transport);
      const forget = this.fromCache && !this.everConnected;
      if (forget) {
        // Tools remembered from a server that does not come up are not offered any longer.
        this.fromCache = false;
        this.tools = [];
        this.prompts = [];
        this.hasResources = false;
        this.instructions = undefined;
      }
      const message =
        codeOf(error) === REQUEST_TIMEOUT
          ? `did not answer initialize within ${duration(this.settings.connectTimeoutMs)}`
          : isRemote(this.config) && unauthorized(error)
            ? `it needs an OAuth login${this.settings.loginHint?.(this.name) ?? ""}`
            : describe(error);
      const full = `MCP server "${this.name}" failed to start: ${message}${this.stderrHint()}`;
      if (!this.closed) this.setStatus("failed", full);
      if (forget) this.onListsChanged();
      throw error instanceof McpConfigError ? error : new McpConnectError(this.name, full, { cause: error });
    }
    if (this.closed) {
      await this.dispose(client, transport);
      throw new McpError(this.name, `MCP server "${this.name}" is closed.`);
    }
    this.client = client;
    this.transport = transport;
    this.everConnected = true;
    this.fromCache = false;
    this.setStatus("connected");
    this.onListsChanged();
    this.remember();
    return client;
  }

  /** The connection ended by itself: the server crashed, exited or dropped the session. */
  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.transport = undefined;
    if (this.pid !== undefined) forgetChild(this.pid);
    this.pid = undefined;
    if (this.closed) return;
    this.setStatus(
      "failed",
      `MCP server "${this.name}" closed the connection (it crashed or exited); it is started again on next use.${this.stderrHint()}`,
    );
  }

  private async dispose(client: Client | undefined, transport: Transport | undefined): Promise<void> {
    try {
      if (client) await client.close();
      else await transport?.close();
    } catch {
      // Closing a broken connection may fail; the process is gone either way.
    }
  }

  private async listTools(client: Client): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.settings.connectTimeoutMs,
      });
      tools.push(...(result.tools as unknown as ListedTool[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  private async listPrompts(client: Client): Promise<ListedPrompt[]> {
    const prompts: ListedPrompt[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listPrompts(cursor === undefined ? undefined : { cursor }, {
        timeout: this.settings.connectTimeoutMs,
      });
      prompts.push(...(result.prompts as unknown as ListedPrompt[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return prompts;
  }

  private async refreshTools(client: Client): Promise<void> {
    this.tools = await this.listTools(client);
    this.onListsChanged();
    this.remember();
  }

  private async refreshPrompts(client: Client): Promise<void> {
    this.prompts = await this.listPrompts(client);
    this.onListsChanged();
    this.remember();
  }

  /** Runs a tool; every failure comes back as an error result the model can read. */
  async callTool(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    context: CallContext,
  ): Promise<ToolOutput> {
    let client: Client;
    try {
      client = await this.usable();
    } catch (error) {
      return { output: describe(error), isError: true };
    }
    const timeout = this.settings.toolTimeoutMs;
    try {
      const result = await client.callTool({ name: tool, arguments: { ...args } }, undefined, {
        timeout,
        resetTimeoutOnProgress: true,
        ...(context.signal !== undefined && { signal: context.signal }),
        onprogress: (p) => {
          const of = p.total !== undefined ? `/${p.total}` : "";
          context.onProgress?.(`[progress ${p.progress}${of}${p.message ? `: ${p.message}` : ""}]\n`);
        },
      });
      return callResultToOutput(result as McpCallResult);
    } catch (error) {
      const output = this.callFailure(tool, error, context.signal);
      if (!context.signal?.aborted && this.unreachable(error)) await this.drop(client);
      return { output, isError: true };
    }
  }

  /**
   * Whether a remote server's failure was the connection's rather than the call's: no JSON-RPC
   * error code (a refused connection, a broken stream) or an HTTP status (a session the server no
   * longer knows after a restart).
   */
  private unreachable(error: unknown): boolean {
    if (!isRemote(this.config)) return false;
    const code = codeOf(error);
    return code === undefined || code > 0;
  }

  /** Closes a remote connection that stopped working; the next use connects again. */
  private async drop(client: Client): Promise<void> {
    if (this.client !== client) return;
    this.client = undefined;
    this.transport = undefined;
    await this.dispose(client, undefined);
    if (!this.closed)
      this.setStatus(
        "failed",
        `MCP server "${this.name}" cannot be reached; it is connected again on next use.`,
      );
  }

  private callFailure(what: string, error: unknown, signal: AbortSignal | undefined): string {
    if (signal?.aborted)
      return `The call to ${what} was cancelled; MCP server "${this.name}" was told to stop it.`;
    switch (codeOf(error)) {
      case REQUEST_TIMEOUT:
        return `${what} on MCP server "${this.name}" did not finish within ${duration(this.settings.toolTimeoutMs)} and was cancelled.`;
      case CONNECTION_CLOSED:
        return `MCP server "${this.name}" closed the connection during ${what} (it crashed or exited); it is started again on next use.${this.stderrHint()}`;
      default:
        return `MCP server "${this.name}" failed ${what}: ${describe(error)}`;
    }
  }

  /** Every resource the server lists (all pages). */
  async listResources(signal?: AbortSignal): Promise<ListedResource[]> {
    const client = await this.usable();
    const resources: ListedResource[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listResources(cursor === undefined ? undefined : { cursor }, {
        timeout: this.settings.toolTimeoutMs,
        ...(signal !== undefined && { signal }),
      });
      resources.push(...(result.resources as unknown as ListedResource[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return resources;
  }

  /** A resource's contents as a tool result (text inlined, the first image attached). */
  async readResource(uri: string, signal?: AbortSignal): Promise<ToolOutput> {
    let client: Client;
    try {
      client = await this.usable();
    } catch (error) {
      return { output: describe(error), isError: true };
    }
    try {
      const result = await client.readResource(
        { uri },
        {
          timeout: this.settings.toolTimeoutMs,
          ...(signal !== undefined && { signal }),
        },
      );
      const blocks = result.contents.map((resource) => ({ type: "resource", resource }) as McpContent);
      const { text, image } = contentToText(blocks);
      return { output: text === "" ? "(empty resource)" : text, ...(image !== undefined && { image }) };
    } catch (error) {
      return { output: this.callFailure(`reading ${uri}`, error, signal), isError: true };
    }
  }

  /** A prompt rendered to text: its messages' content, in order. */
  async getPrompt(name: string, args: Readonly<Record<string, string>>): Promise<string> {
    const client = await this.usable();
    try {
      const result = await client.getPrompt(
        { name, arguments: { ...args } },
        { timeout: this.settings.toolTimeoutMs },
      );
      return result.messages
        .map((m) => contentToText([m.content as McpContent]).text)
        .filter((t) => t !== "")
        .join("\n\n");
    } catch (error) {
      throw new McpError(this.name, this.callFailure(`the prompt ${name}`, error, undefined), {
        cause: error,
      });
    }
  }

  /** Tells a connected server that the roots changed (it asks for them again). */
  async rootsChanged(): Promise<void> {
    await this.client?.sendRootsListChanged().catch(() => {});
  }

  /** Ends the connection and the server's process; the connection cannot be used again. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    await this.opening?.catch(() => {});
    await this.dispose(client, transport);
    if (this.pid !== undefined) forgetChild(this.pid);
    this.pid = undefined;
    this.setStatus("closed");
  }
}
