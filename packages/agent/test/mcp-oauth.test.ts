import { readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager } from "../src/mcp/manager.js";
import { fileAuthStorage, loginMcpServer, McpAuthError, McpOAuthProvider } from "../src/mcp/oauth.js";
import { tempDir, testProfile } from "./support/fixtures.js";
// @ts-expect-error: a plain JavaScript test server without type declarations
import { startOAuthMcpServer } from "./support/mcp/oauth-server.mjs";

type OAuthServer = {
  url: string;
  counts: { registrations: number; authorizations: number; refreshes: number; calls: number };
  expireTokens(): void;
  stop(): Promise<void>;
};

let dir: string;
let removeDir: () => Promise<void>;
let server: OAuthServer;
let tokenFile: string;

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
  tokenFile = path.join(dir, "auth", "remote.json");
  server = await startOAuthMcpServer();
});

afterAll(async () => {
  await server?.stop();
  await removeDir();
});

/** A manager for the OAuth server whose client reads the stored login. */
function managerWithLogin(): McpManager {
  return new McpManager(
    { remote: { type: "http", url: server.url } },
    {
      startupWaitMs: 30_000,
      authProvider: async () => McpOAuthProvider.open(fileAuthStorage(tokenFile)),
      loginHint: (name) => `; log in with: login ${name}`,
    },
  );
}

async function whoami(manager: McpManager): Promise<{ output: string; isError?: boolean }> {
  const profile = testProfile([]);
  const detach = manager.attach(profile.toolRegistry);
  try {
    const tool = profile.toolRegistry.get("mcp__remote__whoami");
    if (!tool) return { output: `no tool: ${JSON.stringify(manager.servers()[0]?.error)}`, isError: true };
    const result = await tool.executor({}, undefined as never, {});
    return typeof result === "string" ? { output: result } : result;
  } finally {
    detach();
  }
}

describe("OAuth for remote MCP servers", () => {
  it("reports a server that needs a login, with the host's hint", async () => {
    const manager = managerWithLogin();
    try {
      await manager.waitForStartup();
      const [s] = manager.servers();
      expect(s?.status).toBe("failed");
      expect(s?.error).toContain("needs an OAuth login; log in with: login remote");
    } finally {
      await manager.close();
    }
  }, 30_000);

  it("logs in (PKCE, dynamic registration, loopback redirect), stores the tokens 0600, and uses them", async () => {
    const before = { ...server.counts };
    const shown: URL[] = [];
    await loginMcpServer({
      server: "remote",
      url: server.url,
      storage: fileAuthStorage(tokenFile),
      // The "browser": follows the authorization URL, which redirects to the loopback listener.
      onAuthorizationUrl: async (url) => {
        shown.push(url);
        const res = await fetch(url, { redirect: "follow" });
        expect(res.status).toBe(200);
      },
    });
    expect(shown[0]?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(shown[0]?.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(server.counts.registrations).toBe(before.registrations + 1);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(tokenFile)).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(tokenFile, "utf8"));
    expect(typeof stored.tokens.access_token).toBe("string");
    expect(typeof stored.tokens.refresh_token).toBe("string");

    const manager = managerWithLogin();
    try {
      await manager.waitForStartup();
      expect(manager.servers()[0]?.status).toBe("connected");
      const result = await whoami(manager);
      expect(result.isError ?? false).toBe(false);
      expect(result.output).toContain(`client ${stored.clientInformation.client_id}`);
    } finally {
      await manager.close();
    }
  }, 60_000);

  it("refreshes an expired access token with the refresh token and stores the new ones", async () => {
    const old = JSON.parse(readFileSync(tokenFile, "utf8")).tokens.access_token;
    const refreshes = server.counts.refreshes;
    server.expireTokens();
    const manager = managerWithLogin();
    try {
      await manager.waitForStartup();
      expect(manager.servers()[0]?.error).toBeUndefined();
      expect(manager.servers()[0]?.status).toBe("connected");
      expect((await whoami(manager)).isError ?? false).toBe(false);
    } finally {
      await manager.close();
    }
    expect(server.counts.refreshes).toBe(refreshes + 1);
    expect(JSON.parse(readFileSync(tokenFile, "utf8")).tokens.access_token).not.toBe(old);
  }, 60_000);

  it("refuses an answer whose state does not match, storing nothing", async () => {
    const file = path.join(dir, "auth", "forged.json");
    const login = loginMcpServer({
      server: "remote",
      url: server.url,
      storage: fileAuthStorage(file),
      onAuthorizationUrl: async (url) => {
        const redirect = new URL(url.searchParams.get("redirect_uri") as string);
        redirect.searchParams.set("code", "forged");
        redirect.searchParams.set("state", "not-the-one-sent");
        await fetch(redirect);
      },
    });
    await expect(login).rejects.toThrow(McpAuthError);
    await expect(login).rejects.toThrow(/does not match/);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved.tokens).toBeUndefined();
  }, 30_000);
});
