import { readFile } from "node:fs/promises";
import type { Client, ClientChannel, ConnectConfig, SFTPWrapper } from "ssh2";
import { HostKeyError, RemoteConnectionError } from "./errors.js";
import { fingerprint, knownHostName, parseKnownHosts, verifyHostKey } from "./known-hosts.js";

/** How to reach and authenticate to one SSH server. */
export interface SshConnectionOptions {
  readonly host: string;
  /** 22 by default. */
  readonly port?: number;
  readonly username: string;
  /** A private key's text; or `privateKeyPath` to read one. */
  readonly privateKey?: string | Buffer;
  readonly privateKeyPath?: string;
  readonly passphrase?: string;
  /** An SSH agent's socket (SSH_AUTH_SOCK); tried when no key is given, and beside one. */
  readonly agent?: string;
  /** The known_hosts file the server's key must be in (no silent trust). */
  readonly knownHostsPath: string;
  /** Keepalive probe interval (15 000 ms); three missed probes drop the connection. */
  readonly keepaliveIntervalMs?: number;
  /** How long the handshake may take (20 000 ms). */
  readonly readyTimeoutMs?: number;
}

/** A connected client and its SFTP session. */
export interface LiveConnection {
  readonly client: Client;
  /**
   * The SFTP session, opened again when it closed while the connection stayed up; undefined
   * when the host has no SFTP subsystem.
   */
  sftp(): Promise<SFTPWrapper | undefined>;
  /** Resolves when this connection closes, for whatever reason. */
  readonly closed: Promise<void>;
}

/**
 * One SSH connection, made on first use and made again on the next use after it dropped. A call
 * running when the connection drops fails with RemoteConnectionError; the next call reconnects.
 */
export class SshConnection {
  private current: Promise<LiveConnection> | undefined;
  private closing = false;

  constructor(private readonly options: SshConnectionOptions) {}

  /** `host:port` for messages. */
  get label(): string {
    return knownHostName(this.options.host, this.options.port ?? 22);
  }

  /** The live connection, connecting first when there is none. */
  live(): Promise<LiveConnection> {
    if (this.closing)
      return Promise.reject(new RemoteConnectionError(this.label, "The SSH connection is closed."));
    if (this.current === undefined) {
      const attempt = this.connect();
      this.current = attempt;
      // A failed or dropped connection is forgotten, so the next call connects again.
      const forget = () => {
        if (this.current === attempt) this.current = undefined;
      };
      attempt.then((live) => live.closed.then(forget), forget);
    }
    return this.current;
  }

  /** Opens an exec channel running `command`. */
  async exec(command: string): Promise<{ channel: ClientChannel; closed: Promise<void> }> {
    const live = await this.live();
    return new Promise((resolve, reject) => {
      live.client.exec(command, (err, channel) => {
        if (err) reject(this.wrap(err, "could not start a remote command"));
        else resolve({ channel, closed: live.closed });
      });
    });
  }

  /** Ends the connection; later calls fail. */
  async close(): Promise<void> {
    this.closing = true;
    const current = this.current;
    this.current = undefined;
    const live = await current?.catch(() => undefined);
    if (!live) return;
    live.client.end();
    await Promise.race([live.closed, new Promise((r) => setTimeout(r, 2_000).unref())]);
  }

  /** An error of this connection as a RemoteConnectionError (host key errors stay as they are). */
  wrap(error: unknown, doing: string): RemoteConnectionError {
    if (error instanceof RemoteConnectionError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new RemoteConnectionError(this.label, `SSH to ${this.label}: ${doing}: ${message}`, {
      cause: error,
    });
  }

  private async connect(): Promise<LiveConnection> {
    const o = this.options;
    const port = o.port ?? 22;
    const [ssh2, knownHostsText, privateKey] = await Promise.all([
      import("ssh2"),
      readFile(o.knownHostsPath, "utf8").catch(() => ""),
      o.privateKey ?? (o.privateKeyPath ? readFile(o.privateKeyPath) : undefined),
    ]);
    // A bundler may hand the CommonJS package over as a default export only.
    const { Client: SshClient } =
      "Client" in ssh2 ? ssh2 : (ssh2 as { default: typeof import("ssh2") }).default;
    const knownHosts = parseKnownHosts(knownHostsText);
    let refused: HostKeyError | undefined;
    const client = new SshClient();
    const config: ConnectConfig = {
      host: o.host,
      port,
      username: o.username,
      ...(privateKey !== undefined && { privateKey }),
      ...(o.passphrase !== undefined && { passphrase: o.passphrase }),
      ...(o.agent !== undefined && { agent: o.agent }),
      keepaliveInterval: o.keepaliveIntervalMs ?? 15_000,
      keepaliveCountMax: 3,
      readyTimeout: o.readyTimeoutMs ?? 20_000,
      hostVerifier: (key: Buffer) => {
        const verdict = verifyHostKey(knownHosts, o.host, port, key);
        if (verdict === "trusted") return true;
        refused = new HostKeyError(
          this.label,
          verdict === "unknown" ? "unknown" : "mismatch",
          fingerprint(key),
          o.knownHostsPath,
        );
        return false;
      },
    };
    let markClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      markClosed = resolve;
    });
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => {
        client.removeListener("ready", onReady);
        reject(refused ?? this.wrap(err, "could not connect"));
      };
      const onReady = () => {
        client.removeListener("error", onError);
        resolve();
      };
      client.once("ready", onReady);
      client.once("error", onError);
      client.connect(config);
    });
    client.on("error", () => {
      // Reported to the calls through their channels and `closed`; nothing to do here.
    });
    client.on("close", () => markClosed());
    // Requests are small and answered one at a time: Nagle's algorithm would hold each behind the
    // last one's delayed ACK (tens of milliseconds per file operation).
    client.setNoDelay(true);
    // A host without an SFTP subsystem refuses the request; files then go over exec instead.
    let session: Promise<SFTPWrapper | undefined> | undefined;
    const open = (): Promise<SFTPWrapper | undefined> => {
      const opening = new Promise<SFTPWrapper | undefined>((resolve) => {
        try {
          client.sftp((err, s) => resolve(err ? undefined : s));
        } catch {
          resolve(undefined);
        }
      });
      void opening.then((s) =>
        s?.on("close", () => {
          // Only this session may have ended (its server died): the next call opens another.
          if (session === opening) session = undefined;
        }),
      );
      return opening;
    };
    session = open();
    const hasSftp = (await session) !== undefined;
    const sftp = () => {
      if (!hasSftp) return Promise.resolve(undefined);
      session ??= open();
      return session;
    };
    return { client, sftp, closed };
  }
}
