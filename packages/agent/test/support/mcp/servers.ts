import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** The published everything server's entry (stdio, sse or streamableHttp by argument). */
export const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
/** The published filesystem server's entry (allowed directories as arguments). */
export const FILESYSTEM = join(
  dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")),
  "dist",
  "index.js",
);
/** The test-only server (`normal` or `silent`). */
export const SCRIPTED = join(dirname(fileURLToPath(import.meta.url)), "scripted-server.mjs");

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Starts the everything server over HTTP (`streamableHttp` or `sse`); resolves once it listens. */
export async function startEverythingHttp(
  transport: "streamableHttp" | "sse",
  port?: number,
): Promise<{ url: string; port: number; process: ChildProcess; stop: () => Promise<void> }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the everything server (${transport}) exited: ${child.exitCode}`);
    if (await accepting(port)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const path = transport === "sse" ? "sse" : "mcp";
  return {
    url: `http://127.0.0.1:${port}/${path}`,
    port,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Whether a process id is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
