import type { McpHostedServerConfig } from "@attractor/agent";
import type { ControlChannel } from "./control-channel.js";

/** The MCP client's transport and message types, as the agent's MCP manager takes them. */
type Transport = ReturnType<McpHostedServerConfig["openTransport"]>;
type JSONRPCMessage = Parameters<Transport["send"]>[0];

/** How long a message to an in-process server waits for its answer (a tool call may be long). */
const REQUEST_TIMEOUT_MS = 10 * 60_000;
/** Notifications and responses are answered at once by the SDK; nothing waits on them. */
const NOTIFY_TIMEOUT_MS = 30_000;

const isRequest = (m: JSONRPCMessage): boolean => "method" in m && "id" in m;

/**
 * One in-process server's transport: every JSON-RPC message our MCP client sends goes to the
 * client program as an `mcp_message` control request; a request's answer comes back in the
 * control response (`mcp_response`). Messages the server starts (notifications, requests to us)
 * arrive through `deliver`.
 */
class ControlChannelTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(
    private readonly channel: ControlChannel,
    private readonly server: string,
    private readonly onClosed: () => void,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`the connection to in-process MCP server "${this.server}" is closed`);
    const request = { subtype: "mcp_message", server_name: this.server, message };
    if (!isRequest(message)) {
      void this.channel.request(request, { timeoutMs: NOTIFY_TIMEOUT_MS }).catch(() => {});
      return;
    }
    const id = (message as { id: string | number }).id;
    this.channel.request(request, { timeoutMs: REQUEST_TIMEOUT_MS }).then(
      (answer) => {
        const response = answer.mcp_response as JSONRPCMessage | undefined;
        this.receive(
          response !== undefined && typeof response === "object"
            ? response
            : failure(id, `the client program answered without an mcp_response`),
        );
      },
      (error: unknown) => this.receive(failure(id, error instanceof Error ? error.message : String(error))),
    );
  }

  /** A message from the server (or an answer to one of ours). */
  receive(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClosed();
    this.onclose?.();
  }
}

/** A JSON-RPC error answer to request `id`: the MCP client fails that request with `message`. */
function failure(id: string | number, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: -32603, message } };
}

/** The in-process MCP servers of a client program, reached over the control channel. */
export interface SdkMcpServers {
  /** The configuration the MCP manager connects to `name` with. */
  config(name: string): McpHostedServerConfig;
  /**
   * A message the client program sent for server `name` (an `mcp_message` control request);
   * false when no connection to that server is open.
   */
  deliver(name: string, message: unknown): boolean;
}

/** In-process servers over `channel`. */
export function createSdkMcpServers(channel: ControlChannel): SdkMcpServers {
  const open = new Map<string, ControlChannelTransport>();
  return {
    config: (name) => ({
      type: "sdk",
      openTransport: () => {
        const transport: ControlChannelTransport = new ControlChannelTransport(channel, name, () => {
          if (open.get(name) === transport) open.delete(name);
        });
        open.set(name, transport);
        return transport;
      },
    }),
    deliver(name, message) {
      const transport = open.get(name);
      if (!transport || typeof message !== "object" || message === null) return false;
      transport.receive(message as JSONRPCMessage);
      return true;
    },
  };
}
