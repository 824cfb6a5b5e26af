import { createHash } from "node:crypto";
import { access } from "node:fs/promises";
import { join } from "node:path";
import type { McpManagerOptions, McpRemoteServerConfig } from "@attractor/agent";

/**
 * Where a remote server's OAuth login is stored: under attractor's home, one file per server
 * name and URL (a changed URL needs a new login), written 0600.
 */
export function mcpAuthFile(home: string, server: string, url: string): string {
  const safe = server.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
  return join(home, "mcp", "auth", `${safe}-${hash}.json`);
}

/** How the user logs in to a server, as messages say it. */
export const loginHint = (server: string): string => `: run \`attractor mcp login ${server}\``;

/**
 * The manager options that give remote servers the user's stored OAuth logins (refreshed and
 * saved back as tokens expire), and the hint for servers without one.
 */
export function mcpAuthOptions(home: string): Pick<McpManagerOptions, "authProvider" | "loginHint"> {
  return {
    loginHint,
    authProvider: async (server: string, config: McpRemoteServerConfig) => {
      const file = mcpAuthFile(home, server, config.url);
      // Without a stored login no client is offered: a server needing one fails with the hint
      // instead of registering a client on every run.
      if (
        !(await access(file).then(
          () => true,
          () => false,
        ))
      )
        return undefined;
      const { McpOAuthProvider, fileAuthStorage } = await import("@attractor/agent");
      return McpOAuthProvider.open(fileAuthStorage(file));
    },
  };
}
