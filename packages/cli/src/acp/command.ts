import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { CliIo } from "../terminal/cli-io.js";
import { createAcpAgent, type SessionDefaults } from "./agent.js";

/** What the command line gives every session of `attractor acp`, checked by the launcher. */
export interface AcpLaunch {
  readonly defaults: SessionDefaults;
  readonly mcpConfig: readonly string[];
  readonly strictMcpConfig: boolean;
}

/**
 * `attractor acp`: serves the Agent Client Protocol on stdin/stdout until the editor closes the
 * connection; resolves to the exit code. Stdout carries protocol messages only: anything else
 * the process would print goes to stderr.
 */
export async function runAcpCommand(
  launch: AcpLaunch,
  io: CliIo & { readonly version: string },
): Promise<number> {
  // A library that logs to the console must not corrupt the protocol stream.
  console.log = console.info = console.debug = (...parts: unknown[]) => console.error(...parts);
  const log = (message: string) => io.stderr.write(`attractor acp: ${message}\n`);
  const { defaults, mcpConfig, strictMcpConfig } = launch;
  const { app, closeAll } = createAcpAgent({
    version: io.version,
    cwd: io.cwd,
    env: io.env,
    defaults,
    mcpConfig,
    strictMcpConfig,
    log,
  });
  const stream = ndJsonStream(
    Writable.toWeb(io.stdout as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  io.onStoppable?.(() => connection.close());
  await connection.closed;
  await closeAll();
  return 0;
}
