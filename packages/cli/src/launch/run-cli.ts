import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Runtime, RuntimeUi } from "@attractor/runtime";
import type { CliIo } from "../terminal/cli-io.js";
import { acpLaunch, refusedAcpFlag } from "./acp-launch.js";
import { type CliArgs, parseArgs } from "./args.js";
import { mergePromptAndPipe, readAll } from "./prompt-input.js";
import { runtimeFlags } from "./runtime-flags.js";

export type { CliIo };

/**
 * The version in the package's package.json, found by walking up from this module: the same code
 * runs from the compiled files and from the bundled command, which sit at different depths.
 */
export function cliVersion(): string {
  for (let dir = new URL(".", import.meta.url), depth = 0; depth < 4; dir = new URL("..", dir), depth++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "@attractor/cli") return pkg.version ?? "unknown";
    } catch {
      // No package.json at this level: look one up.
    }
  }
  return "unknown";
}

/**
 * The directory a run works in: --cwd, resolved against where the user is. Under `npm start`
 * the process runs in the repository root, so npm's INIT_CWD (where npm was invoked) is used.
 */
export function projectDirectory(args: Pick<CliArgs, "cwd">, io: Pick<CliIo, "env" | "cwd">): string {
  const base = io.env.npm_lifecycle_event && io.env.INIT_CWD ? io.env.INIT_CWD : io.cwd;
  return resolve(base, args.cwd ?? ".");
}

/** runCli's answer, in a build without the terminal UI (nor the fleet), to a run that needs it. */
export const NEEDS_INTERACTIVE_UI = -1;

const usage = (io: CliIo, message: string): number => {
  io.stderr.write(`attractor: ${message}\n(run attractor --help for usage)\n`);
  return 2;
};

/**
 * Runs the attractor command line and resolves to its exit code: 0 done, 1 the run failed,
 * 2 bad usage or configuration, 130 interrupted. Interactive mode loads the terminal UI only
 * then; headless mode never loads it.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const startedAt = performance.now();
  // Subcommands of their own, loaded only when used.
  if (argv[0] === "fleet") {
    // The headless command bundle leaves the fleet (its queue client is most of a megabyte) out too.
    if (io.interactiveUi === false) return NEEDS_INTERACTIVE_UI;
    return (await import("../fleet/fleet-command.js")).runFleetCommand(argv.slice(1), io);
  }
  if (argv[0] === "acp") {
    // Editors start `attractor acp` with pipes: the ES modules (not the headless bundle) serve it.
    if (io.interactiveUi === false) return NEEDS_INTERACTIVE_UI;
    const version = cliVersion();
    const refusedFlag = refusedAcpFlag(argv.slice(1));
    if (refusedFlag !== undefined) {
      io.stderr.write(`${refusedFlag}\n`);
      return 2;
    }
    const parsed = parseArgs(argv.slice(1), version, io);
    if (parsed.kind === "exit") return parsed.code;
    const launch = acpLaunch(parsed.args, io.cwd, (message) => io.stderr.write(`${message}\n`));
    if ("refused" in launch) {
      io.stderr.write(`${launch.refused}\n`);
      return 2;
    }
    return (await import("../acp/command.js")).runAcpCommand(launch, { ...io, version });
  }
  if (argv[0] === "mcp") {
    const { runMcpCommand } = await import("../mcp/command.js");
    return runMcpCommand(argv.slice(1), {
      ...io,
      projectDir: (cwd) => projectDirectory(cwd === undefined ? {} : { cwd }, io),
    });
  }
  const parsed = parseArgs(argv, cliVersion(), io);
  if (parsed.kind === "exit") return parsed.code;
  const args = parsed.args;
  const projectDir = projectDirectory(args, io);
  const stdinIsTty = io.stdin.isTTY === true;
  const headless = args.print || !stdinIsTty;
  if (!headless && io.interactiveUi === false) return NEEDS_INTERACTIVE_UI;

  let prompt = args.prompt;
  const streamInput = args.inputFormat === "stream-json";
  if (streamInput) {
    if (!headless) return usage(io, "--input-format stream-json applies to headless runs: add -p.");
    if (stdinIsTty)
      return usage(io, "--input-format stream-json reads user messages from stdin: pipe them in.");
    if (prompt !== undefined)
      return usage(
        io,
        "with --input-format stream-json, every message comes on stdin: drop the prompt argument.",
      );
  } else if (headless) {
    // Piped text goes to the model with the argument, after it (as other agents do).
    if (!stdinIsTty) prompt = mergePromptAndPipe(prompt, await readAll(io.stdin));
    if (prompt === undefined) {
      return usage(
        io,
        args.print
          ? 'headless mode (-p) needs a task: attractor -p "fix the failing test", or pipe it on stdin.'
          : "stdin is not a terminal and carried no task: pass the task as an argument (with -p) or pipe it in.",
      );
    }
  } else if (args.outputFormat !== undefined) {
    return usage(io, "--output-format applies to headless runs: add -p.");
  }
  if (args.permissionPromptTool === "stdio" && !streamInput)
    return usage(
      io,
      "--permission-prompt-tool stdio asks the program on stdin: add --input-format stream-json.",
    );
  if (args.unhonouredFlags.length > 0)
    io.stderr.write(
      `attractor: accepted and not honoured (Claude Code flags): ${args.unhonouredFlags.join(", ")}\n`,
    );
  if (args.attractorEvents && args.outputFormat !== "stream-json" && headless)
    io.stderr.write("attractor: --attractor-events adds events to stream-json output only; ignored.\n");

  let resume = typeof args.resume === "string" ? args.resume : undefined;
  if (args.resume === true) {
    const chosen = await chooseSession(io, projectDir, headless);
    if (typeof chosen === "number") return chosen;
    resume = chosen;
  }

  let mcp: Awaited<ReturnType<typeof import("@attractor/runtime/mcp").mcpRunOptions>>;
  try {
    const { mcpRunOptions } = await import("@attractor/runtime/mcp");
    mcp = await mcpRunOptions({
      projectDir,
      cwd: io.cwd,
      env: io.env,
      configFiles: args.mcpConfig,
      strict: args.strictMcpConfig,
      ...(!headless && {
        ask: async (pending) =>
          (await import("../mcp/approval-prompt.js")).askProjectServers(pending, {
            input: io.stdin,
            output: io.stderr,
          }),
      }),
    });
  } catch (error) {
    const message = configurationMessage(error);
    if (message === undefined) throw error;
    io.stderr.write(`attractor: ${message}\n`);
    return 2;
  }

  const { createRuntime } = await import("@attractor/runtime");
  let ui: RuntimeUi;
  let interactive: typeof import("../tui/index.js") | undefined;
  // A client program speaking the control protocol (the Claude Agent SDK) registers its hooks
  // and in-process servers in an initialize request on the first line: read before the runtime.
  const control = streamInput ? await import("../headless/control-protocol.js") : undefined;
  const input = control?.openStreamJsonInput(io.stdin, io.stderr);
  let sdk: import("../claude-sdk/sdk-connection.js").SdkConnection | undefined;
  let firstInitialize: Awaited<ReturnType<NonNullable<typeof input>["initialize"]>>;
  if (headless) {
    ui = (await import("../headless/run-headless.js")).HEADLESS_UI;
    if (input) {
      firstInitialize = await input.initialize();
      sdk = (await import("../claude-sdk/sdk-connection.js")).connectSdkClient({
        write: (line) => io.stdout.write(line),
        warn: (message) => io.stderr.write(`attractor: ${message}\n`),
        initialize: firstInitialize?.request,
        permissionPrompt: args.permissionPromptTool === "stdio",
        ui,
      });
      ui = sdk.ui;
      mcp = sdk.mcp(mcp);
    }
  } else {
    interactive = await import("../tui/index.js");
    ui = interactive.createInteractiveUi();
  }

  let runtime: Runtime;
  try {
    runtime = await createRuntime({
      projectDir,
      ui,
      headless,
      env: io.env,
      ...runtimeFlags(args, projectDirectory({}, io)),
      // A program's system prompt options, unless the command line gives its own.
      ...(args.systemPrompt === undefined &&
        sdk?.prompts.systemPrompt !== undefined && { systemPrompt: sdk.prompts.systemPrompt }),
      ...(args.appendSystemPrompt === undefined &&
        sdk?.prompts.appendSystemPrompt !== undefined && {
          appendSystemPrompt: sdk.prompts.appendSystemPrompt,
        }),
      continueLatest: args.continueLatest,
      ...(resume !== undefined && { resume }),
      ...(!headless && {
        confirmProjectTrust: async (request) =>
          (await import("./trust-prompt.js")).askProjectTrust(request, {
            input: io.stdin,
            output: io.stderr,
          }),
      }),
      ...(mcp !== undefined && { mcp }),
      ...(sdk !== undefined && sdk.hookCallbacks.length > 0 && { hookCallbacks: sdk.hookCallbacks }),
      ...(sdk !== undefined && sdk.subagentTypes.length > 0 && { subagentTypes: sdk.subagentTypes }),
    });
  } catch (error) {
    const message = configurationMessage(error);
    if (message === undefined) throw error;
    io.stderr.write(`attractor: ${message}\n`);
    return 2;
  }

  if (headless) {
    const { runHeadless } = await import("../headless/run-headless.js");
    const built = runtime;
    sdk?.onSetMode((mode) => built.setMode(mode));
    if (control && firstInitialize)
      control.writeControlResponse(io.stdout, firstInitialize.requestId, {
        response: { ...control.INITIALIZE_RESPONSE },
      });
    const messages =
      control && input
        ? input.messages(
            control.controlResponder(runtime, io.stdout, io.stderr, {
              ...(sdk !== undefined && { channel: sdk.channel, servers: sdk.servers }),
              initialized: firstInitialize !== undefined,
            }),
            sdk?.channel,
          )
        : undefined;
    return runHeadless(runtime, {
      ...(messages !== undefined ? { messages } : { prompt: prompt as string }),
      format: args.outputFormat ?? (streamInput ? "stream-json" : "text"),
      verbose: args.attractorEvents,
      version: cliVersion(),
      stdout: io.stdout,
      stderr: io.stderr,
      startedAt,
      env: io.env,
      ...(io.onStoppable !== undefined && { onStoppable: io.onStoppable }),
    });
  }
  return (interactive as typeof import("../tui/index.js")).runInteractive(runtime, {
    ...(prompt !== undefined && { initialMessage: prompt }),
    ui: ui as ReturnType<typeof import("../tui/index.js").createInteractiveUi>,
  });
}

/** `--resume` without an id: a picker on a terminal, the list and exit 2 when headless. */
async function chooseSession(io: CliIo, projectDir: string, headless: boolean): Promise<string | number> {
  const [{ createSessionStore }, { attractorHome }, picker] = await Promise.all([
    import("@attractor/runtime/store"),
    import("@attractor/runtime/config"),
    import("./resume-picker.js"),
  ]);
  const store = createSessionStore({ home: attractorHome(io.env as NodeJS.ProcessEnv) });
  const sessions = await store.list(projectDir);
  if (sessions.length === 0) return usage(io, `no stored sessions for ${projectDir}.`);
  if (headless) {
    return usage(
      io,
      `--resume needs a session id in headless mode. Sessions of ${projectDir}:\n${picker.formatSessionList(sessions)}`,
    );
  }
  const id = await picker.pickSession(sessions, { input: io.stdin, output: io.stderr });
  return id ?? 0;
}

/** The message of a configuration problem (exit 2), or undefined for any other error. */
function configurationMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  // By name, so this module loads none of the classes' modules up front.
  if (error.name === "SettingsError") return `invalid settings:\n${error.message}`;
  if (error.name === "McpConfigFileError") return `invalid MCP configuration: ${error.message}`;
  if (
    error.name === "ConfigurationError" ||
    error.name === "NoProviderError" ||
    error.name === "SessionSelectionError"
  ) {
    const hint = (error as { hint?: unknown }).hint;
    return typeof hint === "string" ? `${error.message}\n${hint}` : error.message;
  }
  return undefined;
}
