/** Something went wrong with an MCP server; `server` names it as configured. */
export class McpError extends Error {
  constructor(
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "McpError";
  }
}

/** The server could not be started or did not complete `initialize`. */
export class McpConnectError extends McpError {
  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super(server, message, options);
    this.name = "McpConnectError";
  }
}

/** A configuration the manager cannot use (unknown server, bad URL, empty command). */
export class McpConfigError extends McpError {
  constructor(server: string, message: string) {
    super(server, message);
    this.name = "McpConfigError";
  }
}
