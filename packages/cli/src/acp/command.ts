import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { CliArgs } from "../launch/args.js";
import type { CliIo } from "../terminal/cli-io.js";
import { createAcpAgent, type SessionDefaults } from "./agent.js";

/** Flags that make no sense for an editor's agent: the editor sends the prompts and picks sessions. */
const REFUSED = ["-p", "--print", "-c", "--continue", "-r", "--resume", "--output-format", "--input-format"];

/**
 * `attractor acp`: serves the Agent Client Protocol on stdin/stdout until the editor closes the
 * connection; resolves to the exit code. Stdout carries protocol messages only: anything else
 * the process would print goes to stderr.
 */
export async function runAcpCommand(
  argv: readonly string[],
  io: CliIo & { readonly version: string; readonly parse: (argv: readonly string[]) => CliArgs | number },
): Promise<number> {
  const refused = argv.find((a) => REFUSED.includes(a) || REFUSED.some((r) => a.startsWith(`${r}=`)));
  if (refused !== undefined) {
    io.stderr.write(
      `attractor acp: ${refused} does not apply: the editor sends the prompts and chooses sessions.\n`,
    );
    return 2;
  }
  const args = io.parse(argv);
  if (typeof args === "number") return args;
  if (args.prompt !== undefined) {
    io.stderr.write(`attractor acp: unexpected argument "${args.prompt}": the editor sends the prompts.\n`);
    return 2;
  }
  if (args.cwd !== undefined) {
    io.stderr.write("attractor acp: --cwd does not apply: the editor gives each session its directory.\n");
    return 2;
  }
  if (args.verbose)
    io.stderr.write("attractor acp: --verbose applies to headless stream-json output; ignored.\n");
  // A library that logs to the console must not corrupt the protocol stream.
  console.log = console.info = console.debug = (...parts: unknown[]) => console.error(...parts);
  const log = (message: string) => io.stderr.write(`attractor acp: ${message}\n`);
  const defaults: SessionDefaults = {
    ...(args.provider !== undefined && { provider: args.provider }),
    ...(args.model !== undefined && { model: args.model }),
    ...(args.baseUrl !== undefined && { baseUrl: args.baseUrl }),
    ...(args.mode !== undefined && { mode: args.mode }),
    ...(args.sandbox !== undefined && { sandbox: args.sandbox }),
    ...(args.allowedTools.length > 0 && { allowedTools: args.allowedTools }),
    ...(args.disallowedTools.length > 0 && { disallowedTools: args.disallowedTools }),
    ...(args.systemPrompt !== undefined && { systemPrompt: args.systemPrompt }),
    ...(args.appendSystemPrompt !== undefined && { appendSystemPrompt: args.appendSystemPrompt }),
    ...(args.maxTurns !== undefined && { maxTurns: args.maxTurns }),
    ...(args.reasoningEffort !== undefined && { reasoningEffort: args.reasoningEffort }),
    ...(args.toolMode !== undefined && { toolMode: args.toolMode }),
    ...(args.remote !== undefined && { remote: args.remote }),
    ...(args.addDirs.length > 0 && { additionalDirectories: args.addDirs.map((d) => resolve(io.cwd, d)) }),
    trustProject: args.trustProject,
  };
  const { app, closeAll } = createAcpAgent({
    version: io.version,
    cwd: io.cwd,
    env: io.env,
    defaults,
    mcpConfig: args.mcpConfig,
    strictMcpConfig: args.strictMcpConfig,
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
