// The MCP SDK is loaded on first use, one transport at a time: a process with no MCP server
// configured never parses it, and one with only remote servers never loads the stdio transport.

type ClientModule = typeof import("@modelcontextprotocol/sdk/client/index.js");
type TypesModule = typeof import("@modelcontextprotocol/sdk/types.js");

let core: Promise<{ client: ClientModule; types: TypesModule }> | undefined;

/** The SDK's Client class and protocol schemas. */
export function loadSdkCore(): Promise<{ client: ClientModule; types: TypesModule }> {
  core ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, types]) => ({ client, types }));
  return core;
}

/** The stdio client transport. */
export function loadStdioTransport(): Promise<typeof import("@modelcontextprotocol/sdk/client/stdio.js")> {
  return import("@modelcontextprotocol/sdk/client/stdio.js");
}

/** The streamable HTTP client transport. */
export function loadHttpTransport(): Promise<
  typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")
> {
  return import("@modelcontextprotocol/sdk/client/streamableHttp.js");
}

/** The legacy HTTP+SSE client transport. */
export function loadSseTransport(): Promise<typeof import("@modelcontextprotocol/sdk/client/sse.js")> {
  return import("@modelcontextprotocol/sdk/client/sse.js");
}

/** The SDK's stdio framing (message buffer and serialisation), for transports over other processes. */
export function loadStdioFraming(): Promise<typeof import("@modelcontextprotocol/sdk/shared/stdio.js")> {
  return import("@modelcontextprotocol/sdk/shared/stdio.js");
}
