// An MCP server behind OAuth on 127.0.0.1, for tests: the SDK's authorization-server router
// (metadata, dynamic registration, authorize, token) over a small in-memory provider that
// approves every authorization at once, issues access tokens that live `tokenSeconds` and
// refresh tokens, and a streamable HTTP MCP endpoint that requires a bearer token.
import { randomUUID } from "node:crypto";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import express from "express";

/** Starts the server; resolves with its MCP URL, counters and a stop function. */
export async function startOAuthMcpServer({ tokenSeconds = 3600 } = {}) {
  const clients = new Map();
  const codes = new Map();
  const access = new Map();
  const refresh = new Map();
  const counts = { registrations: 0, authorizations: 0, refreshes: 0, calls: 0 };
  const issue = (clientId, scopes, resource) => {
    const token = randomUUID();
    const refreshToken = randomUUID();
    access.set(token, { clientId, scopes, resource, expiresAt: Date.now() + tokenSeconds * 1000 });
    refresh.set(refreshToken, { clientId, scopes, resource });
    return {
      access_token: token,
      token_type: "bearer",
      expires_in: tokenSeconds,
      refresh_token: refreshToken,
      scope: scopes.join(" "),
    };
  };
  const provider = {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (client) => {
        counts.registrations++;
        clients.set(client.client_id, client);
        return client;
      },
    },
    async authorize(client, params, res) {
      counts.authorizations++;
      if (!client.redirect_uris.includes(params.redirectUri)) throw new Error("unregistered redirect_uri");
      const code = randomUUID();
      codes.set(code, { client, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set("code", code);
      if (params.state !== undefined) target.searchParams.set("state", params.state);
      res.redirect(target.toString());
    },
    async challengeForAuthorizationCode(_client, code) {
      const data = codes.get(code);
      if (!data) throw new Error("unknown code");
      return data.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const data = codes.get(code);
      if (!data || data.client.client_id !== client.client_id) throw new Error("bad code");
      codes.delete(code);
      return issue(client.client_id, data.params.scopes ?? [], data.params.resource);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const data = refresh.get(refreshToken);
      if (!data || data.clientId !== client.client_id) throw new Error("bad refresh token");
      refresh.delete(refreshToken);
      counts.refreshes++;
      return issue(client.client_id, data.scopes, data.resource);
    },
    async verifyAccessToken(token) {
      const data = access.get(token);
      if (!data || data.expiresAt < Date.now()) throw new InvalidTokenError("invalid or expired token");
      return {
        token,
        clientId: data.clientId,
        scopes: data.scopes,
        expiresAt: Math.floor(data.expiresAt / 1000),
      };
    },
  };

  const app = express();
  const listener = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const base = `http://127.0.0.1:${listener.address().port}`;
  const mcpUrl = new URL("/mcp", base);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.post("/mcp", express.json(), bearer, async (req, res) => {
    const server = new McpServer({ name: "oauth-test", version: "1.0.0" });
    server.registerTool("whoami", { description: "Names the OAuth client calling." }, async (extra) => {
      counts.calls++;
      return { content: [{ type: "text", text: `client ${extra.authInfo?.clientId}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return {
    url: mcpUrl.href,
    counts,
    /** Makes every access token issued so far expire. */
    expireTokens: () => {
      for (const data of access.values()) data.expiresAt = 0;
    },
    stop: () =>
      new Promise((resolve) => {
        listener.closeAllConnections?.();
        listener.close(() => resolve());
      }),
  };
}
