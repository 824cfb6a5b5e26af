import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { McpError } from "./errors.js";

/** What an OAuth login to one server leaves behind: the registered client and its tokens. */
export interface McpAuthState {
  readonly clientInformation?: Readonly<Record<string, unknown>>;
  readonly tokens?: Readonly<Record<string, unknown>>;
  readonly codeVerifier?: string;
  /** The redirect URL the client was registered with. */
  readonly redirectUrl?: string;
}

/** Where a server's OAuth state is kept. */
export interface McpAuthStorage {
  load(): Promise<McpAuthState | undefined>;
  save(state: McpAuthState): Promise<void>;
}

/** OAuth state in one JSON file, readable by its owner only (0600, its folder 0700). */
export function fileAuthStorage(file: string): McpAuthStorage {
  return {
    async load() {
      try {
        const data: unknown = JSON.parse(await readFile(file, "utf8"));
        return typeof data === "object" && data !== null ? (data as McpAuthState) : undefined;
      } catch {
        return undefined;
      }
    },
    async save(state) {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      const temporary = `${file}.${randomBytes(4).toString("hex")}.tmp`;
      try {
        await writeFile(temporary, JSON.stringify(state), { mode: 0o600 });
        // The mode given at creation is masked by the umask; the file must be 0600 whatever it is.
        await chmod(temporary, 0o600);
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => {});
        throw error;
      }
    },
  };
}

/** The redirect URL a client without a login yet is described with (never visited). */
const PLACEHOLDER_REDIRECT = "http://127.0.0.1/callback";

/**
 * The SDK's OAuthClientProvider over an McpAuthStorage: public client (PKCE, no secret), dynamic
 * registration, tokens saved as they come (refreshes included). Without `onAuthorizationUrl` it
 * cannot start a browser login: the connection then fails as unauthorized.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private data: McpAuthState;
  private lastState: string | undefined;
  /** Whether the server asked for a login this provider could not do. */
  loginNeeded = false;

  private constructor(
    private readonly storage: McpAuthStorage,
    data: McpAuthState,
    private readonly options: McpOAuthProviderOptions,
  ) {
    this.data = data;
  }

  /** A provider with the stored state loaded. */
  static async open(
    storage: McpAuthStorage,
    options: McpOAuthProviderOptions = {},
  ): Promise<McpOAuthProvider> {
    return new McpOAuthProvider(storage, (await storage.load()) ?? {}, options);
  }

  get redirectUrl(): string {
    return this.options.redirectUrl ?? this.data.redirectUrl ?? PLACEHOLDER_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? "attractor",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.options.scope !== undefined && { scope: this.options.scope }),
    };
  }

  /** The `state` sent with the last authorization request. */
  get expectedState(): string | undefined {
    return this.lastState;
  }

  state(): string {
    this.lastState = randomBytes(16).toString("base64url");
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const info = this.data.clientInformation as OAuthClientInformationMixed | undefined;
    // A client registered for another redirect URL (an earlier login's port) registers again.
    if (info && this.options.redirectUrl !== undefined && this.data.redirectUrl !== this.options.redirectUrl)
      return undefined;
    return info;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.update({
      clientInformation: info as unknown as Record<string, unknown>,
      redirectUrl: this.redirectUrl,
    });
  }

  tokens(): OAuthTokens | undefined {
    return this.data.tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.update({ tokens: tokens as unknown as Record<string, unknown> });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.options.onAuthorizationUrl) {
      this.loginNeeded = true;
      return;
    }
    await this.options.onAuthorizationUrl(url);
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.update({ codeVerifier });
  }

  codeVerifier(): string {
    if (!this.data.codeVerifier) throw new Error("No PKCE code verifier was saved for this login.");
    return this.data.codeVerifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    const { clientInformation, tokens, codeVerifier, ...rest } = this.data;
    const keep: McpAuthState = {
      ...rest,
      ...(scope !== "all" && scope !== "client" && clientInformation !== undefined && { clientInformation }),
      ...(scope !== "all" && scope !== "tokens" && tokens !== undefined && { tokens }),
      ...(scope !== "all" && scope !== "verifier" && codeVerifier !== undefined && { codeVerifier }),
    };
    this.data = keep;
    await this.storage.save(keep);
  }

  private async update(change: Partial<McpAuthState>): Promise<void> {
    this.data = { ...this.data, ...change };
    await this.storage.save(this.data);
  }
}

/** How an McpOAuthProvider behaves. */
export interface McpOAuthProviderOptions {
  /** Where the authorization server sends the browser back (a login's loopback listener). */
  readonly redirectUrl?: string;
  /** Receives the authorization URL to open in a browser; without it, logins cannot start. */
  readonly onAuthorizationUrl?: (url: URL) => void | Promise<void>;
  readonly clientName?: string;
  readonly scope?: string;
}

/** The OAuth login to a server failed or was abandoned. */
export class McpAuthError extends McpError {
  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super(server, message, options);
    this.name = "McpAuthError";
  }
}

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>attractor</title><p>${text.replace(/[<>&]/g, "")}</p>`;

/**
 * Logs in to a remote MCP server with OAuth (authorization code with PKCE, dynamic client
 * registration): listens on a loopback port for the redirect, hands the authorization URL to
 * `onAuthorizationUrl` (print it, open a browser), waits for the code, exchanges it and stores
 * the tokens in `storage`. Rejects with McpAuthError on refusal, a state mismatch or timeout.
 */
export async function loginMcpServer(options: {
  readonly server: string;
  readonly url: string;
  readonly storage: McpAuthStorage;
  readonly onAuthorizationUrl: (url: URL) => void | Promise<void>;
  /** How long to wait for the browser to come back (default 5 minutes). */
  readonly timeoutMs?: number;
  readonly clientName?: string;
  readonly scope?: string;
}): Promise<void> {
  const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
  let receive: (params: URLSearchParams) => void = () => {};
  const callback = new Promise<URLSearchParams>((resolve) => {
    receive = resolve;
  });
  const listener = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const failed = url.searchParams.get("error");
    res.writeHead(failed ? 400 : 200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      PAGE(
        failed
          ? `The authorization failed (${failed}). You can close this window.`
          : "attractor is logged in to the MCP server. You can close this window.",
      ),
    );
    receive(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = listener.address() as { port: number };
  let timer: NodeJS.Timeout | undefined;
  try {
    const provider = await McpOAuthProvider.open(options.storage, {
      redirectUrl: `http://127.0.0.1:${port}/callback`,
      onAuthorizationUrl: options.onAuthorizationUrl,
      ...(options.clientName !== undefined && { clientName: options.clientName }),
      ...(options.scope !== undefined && { scope: options.scope }),
    });
    // A login starts afresh: old tokens would only be refreshed.
    await provider.invalidateCredentials("tokens");
    const first = await auth(provider, {
      serverUrl: options.url,
      ...(options.scope !== undefined && { scope: options.scope }),
    });
    if (first === "AUTHORIZED") return;
    const timeoutMs = options.timeoutMs ?? 300_000;
    const params = await Promise.race([
      callback,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new McpAuthError(
                options.server,
                `No authorization arrived within ${Math.round(timeoutMs / 1000)} s.`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]);
    const error = params.get("error");
    if (error)
      throw new McpAuthError(
        options.server,
        `The authorization server refused: ${error}${params.get("error_description") ? ` (${params.get("error_description")})` : ""}`,
      );
    if (params.get("state") !== provider.expectedState)
      throw new McpAuthError(
        options.server,
        "The authorization answer does not match the request (state); nothing was stored.",
      );
    const code = params.get("code");
    if (!code) throw new McpAuthError(options.server, "The authorization answer carries no code.");
    const second = await auth(provider, {
      serverUrl: options.url,
      authorizationCode: code,
      ...(options.scope !== undefined && { scope: options.scope }),
    });
    if (second !== "AUTHORIZED")
      throw new McpAuthError(options.server, "The authorization code was not accepted.");
  } catch (error) {
    if (error instanceof McpAuthError) throw error;
    throw new McpAuthError(
      options.server,
      `Logging in to MCP server "${options.server}" failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    if (timer) clearTimeout(timer);
    listener.closeAllConnections?.();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
}
