import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  McpElicitationRequest,
  McpElicitationResult,
  McpSamplingRequest,
  McpSamplingResult,
} from "./client-requests.js";
import type { McpProcessStarter } from "./process-transport.js";
import type { McpToolCache } from "./tool-cache.js";

/** A server started as a child process and spoken to over its stdin and stdout. */
export interface McpStdioServerConfig {
  readonly type?: "stdio";
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a minimal inherited environment (PATH, HOME, USER, SHELL, TERM, LOGNAME). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A remote server: "http" is streamable HTTP, "sse" the legacy HTTP+SSE transport. */
export interface McpRemoteServerConfig {
  readonly type: "http" | "sse";
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A server the host reaches through a transport of its own: a program's in-process server (the
 * Claude Agent SDK's `createSdkMcpServer`) spoken to over the host's control channel. Its tools
 * are never cached between runs: the program serving them may differ each time.
 */
export interface McpHostedServerConfig {
  readonly type: "sdk";
  /** Opens a transport to the server; called once per connection attempt. */
  readonly openTransport: () => Transport;
}

/** One server as a configuration file (or a host, for "sdk") names it. */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig | McpHostedServerConfig;

/** Where a server's connection stands. */
export type McpServerStatus = "pending" | "connecting" | "connected" | "failed" | "closed";

/** One tool a server offers, as listed. */
export interface McpToolInfo {
  /** The name the model calls: `mcp__<server>__<tool>`. */
  readonly name: string;
  /** The server's own name for it. */
  readonly serverToolName: string;
  readonly description: string;
}

/** One prompt a server offers (hosts turn them into slash commands). */
export interface McpPromptInfo {
  /** `mcp__<server>__<prompt>`. */
  readonly name: string;
  readonly serverPromptName: string;
  readonly description: string;
  readonly arguments: readonly {
    readonly name: string;
    readonly description?: string;
    readonly required: boolean;
  }[];
}

/** A server's state for hosts (`/mcp`, `attractor mcp list`). */
export interface McpServerSnapshot {
  readonly name: string;
  readonly transport: "stdio" | "http" | "sse" | "sdk";
  readonly status: McpServerStatus;
  /** Why it failed or closed, when it did. */
  readonly error?: string;
  readonly serverName?: string;
  readonly serverVersion?: string;
  /** The server's `instructions` from initialize. */
  readonly instructions?: string;
  /** Its lists come from the tool cache; the server has not connected yet. */
  readonly fromCache: boolean;
  readonly tools: readonly McpToolInfo[];
  readonly prompts: readonly McpPromptInfo[];
  readonly hasResources: boolean;
}

/** What a connection manager reports; hosts show these as they like. */
export type McpEvent =
  | {
      readonly kind: "server_status";
      readonly server: string;
      readonly status: McpServerStatus;
      readonly error?: string;
    }
  | { readonly kind: "tools_changed"; readonly server: string; readonly tools: readonly string[] }
  /** A line the server wrote to stderr (stdio servers). */
  | { readonly kind: "server_log"; readonly server: string; readonly line: string };

/** How a connection manager behaves; every field has a default. */
export interface McpManagerOptions {
  /** How long `initialize` may take before the server is reported failed (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** How long one tool call may run; progress notifications restart the clock (default 10 min). */
  readonly toolTimeoutMs?: number;
  /** How long the first model request waits for servers still connecting (default 5 s). */
  readonly startupWaitMs?: number;
  /** Working directory for stdio servers without their own (default: the process's). */
  readonly cwd?: string;
  /** Client name sent in `initialize` (default "attractor"). */
  readonly clientName?: string;
  readonly clientVersion?: string;
  /**
   * Remembers each server's tool list between runs (see fileToolCache): with it, the tools of
   * servers it knows are offered at once and the first request does not wait for them.
   */
  readonly toolCache?: McpToolCache;
  /**
   * Directories offered to servers as roots (absolute paths, usually the project): servers are
   * told of changes made with setRoots(). Without it, the roots capability is not declared.
   */
  readonly roots?: readonly string[];
  /**
   * Answers a server's sampling/createMessage (a completion from the host's model, after the
   * user's approval). Throw McpRequestRefused to refuse. Without it, sampling is not declared.
   */
  readonly onSampling?: (request: McpSamplingRequest, signal: AbortSignal) => Promise<McpSamplingResult>;
  /**
   * Answers a server's form elicitation (values from the user). Without it, elicitation is not
   * declared; a host without a user returns `{ action: "decline" }`.
   */
  /**
   * Starts stdio servers' processes, for servers that must run where the tools do: for example
   * `(c, a, o) => sandboxed.startSandboxedProcess(c, a, o)` runs them inside the sandbox. By
   * default they are children of this process with a minimal environment.
   */
  readonly startProcess?: McpProcessStarter;
  /**
   * The OAuth client for a remote server (for example an McpOAuthProvider over the tokens a
   * login stored), or undefined for none. Tokens are refreshed through it as they expire.
   */
  readonly authProvider?: (
    server: string,
    config: McpRemoteServerConfig,
  ) => Promise<OAuthClientProvider | undefined>;
  /** Added to the message of a server that needs an OAuth login: how the user logs in. */
  readonly loginHint?: (server: string) => string;
  readonly onElicitation?: (
    request: McpElicitationRequest,
    signal: AbortSignal,
  ) => Promise<McpElicitationResult>;
}
