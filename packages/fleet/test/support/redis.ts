// A real redis-server on 127.0.0.1 for the tests: a free port, its data in a temp dir (append-only
// file on, so a restart keeps what was written, unless asked otherwise), stopped and restarted on demand.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Why redis-server cannot run here, or undefined when it can. */
export function redisUnavailable(): string | undefined {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return undefined;
  } catch {
    return existsSync("/usr/bin/redis-server")
      ? "redis-server does not start"
      : "redis-server is missing (Debian package redis-server)";
  }
}

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM: it writes its append-only file first). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/**
 * Starts redis-server; `persist: false` starts one that keeps nothing across a restart (no
 * append-only file, no snapshots), as a misconfigured production Redis would.
 */
export async function startRedis(
  options: {
    persist?: boolean;
    /** requirepass */
    password?: string;
    /** Serve TLS only, with this certificate and key (PEM files). */
    tls?: { cert: string; key: string };
  } = {},
): Promise<TestRedis> {
  const persist = options.persist ?? true;
  const dir = await mkdtemp(join(tmpdir(), "attractor-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      "redis-server",
      [
        ...(options.tls
          ? [
              "--port",
              "0",
              "--tls-port",
              String(port),
              "--tls-cert-file",
              options.tls.cert,
              "--tls-key-file",
              options.tls.key,
              "--tls-auth-clients",
              "no",
            ]
          : ["--port", String(port)]),
        ...(options.password !== undefined ? ["--requirepass", options.password] : []),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        ...(persist ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]),
        "--save",
        "",
      ],
      { stdio: "ignore" },
    );
    for (let i = 0; i < 200 && !(await listening(port)); i++) await new Promise((r) => setTimeout(r, 25));
    if (!(await listening(port))) throw new Error(`redis-server did not listen on ${port}`);
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGTERM");
    await exited;
  };
  await start();
  return {
    url: `${options.tls ? "rediss" : "redis"}://${options.password !== undefined ? `:${options.password}@` : ""}127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
