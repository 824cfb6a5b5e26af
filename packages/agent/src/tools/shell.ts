import { type Static, Type } from "@sinclair/typebox";
import { EnvironmentError } from "../environment/errors.js";
import type { BackgroundProcessInfo } from "../types/background-process.js";
import type { ExecResult } from "../types/environment.js";
import type { RegisteredTool, ToolCallContext, ToolOutput } from "../types/tool.js";
import { defineBuiltinTool } from "./define-tool.js";
import { processesOf } from "./processes/tools.js";
import { ArgumentError } from "./shared/tool-errors.js";

/** The spec's hard ceiling for any command timeout. */
const MAX_TIMEOUT_MS = 600_000;
const FALLBACK_TIMEOUT_MS = 10_000;

/** The message appended to partial output when a command times out (spec §5.4, verbatim). */
export function timeoutMessage(timeoutMs: number): string {
  return `[ERROR: Command timed out after ${timeoutMs}ms. Partial output is shown above.\nYou can retry with a longer timeout by setting the timeout_ms parameter.]`;
}

export interface ShellToolOptions {
  /** This tool's default when the call gives no timeout_ms (profiles: 10 s or 120 s). */
  readonly defaultTimeoutMs?: number;
}

/** Picks the timeout: the call's, else the tool's default, else the session's; clamped to the maximum. */
export function effectiveTimeout(
  requested: unknown,
  options: ShellToolOptions,
  ctx: Pick<ToolCallContext, "defaultCommandTimeoutMs" | "maxCommandTimeoutMs">,
): number {
  const fromCall =
    typeof requested === "number" && Number.isFinite(requested) && requested > 0 ? requested : undefined;
  const chosen = fromCall ?? options.defaultTimeoutMs ?? ctx.defaultCommandTimeoutMs ?? FALLBACK_TIMEOUT_MS;
  return Math.max(1, Math.floor(Math.min(chosen, ctx.maxCommandTimeoutMs ?? MAX_TIMEOUT_MS)));
}

function executor(options: ShellToolOptions) {
  return async (args: ShellArgs, ctx: ToolCallContext): Promise<ToolOutput> => {
    const { command } = args;
    if (args.run_in_background === true) return startInBackground(args, ctx);
    if (args.tty === true)
      throw new ArgumentError("tty applies to commands run with run_in_background: true.", "tty");
    const timeoutMs = effectiveTimeout(args.timeout_ms, options, ctx);
    let result: ExecResult;
    try {
      result = await ctx.environment.execCommand(command, {
        timeoutMs,
        ...(ctx.signal !== undefined && { signal: ctx.signal }),
        ...(ctx.onOutput !== undefined && { onOutput: (chunk: string) => ctx.onOutput?.(chunk) }),
      });
    } catch (err) {
      // The command could not start (missing working directory, no bash…): the model should know why.
      if (err instanceof EnvironmentError)
        return { output: `Could not run the command: ${err.message}`, isError: true, errorCode: err.code };
      throw err;
    }
    const parts: string[] = [];
    const body = result.output.endsWith("\n") ? result.output.slice(0, -1) : result.output;
    if (body.length > 0) parts.push(body);
    if (result.timedOut) parts.push(timeoutMessage(timeoutMs));
    else if (result.aborted) parts.push("[Command was aborted.]");
    if (result.sandboxBlock !== undefined) parts.push(result.sandboxBlock.message);
    if (result.unsandboxed) parts.push("[The user let this command run outside the sandbox.]");
    const exit = result.exitCode ?? (result.signal ? `killed by ${result.signal}` : "unknown");
    parts.push(`Exit code: ${exit}`, `Duration: ${result.durationMs} ms`);
    return {
      output: parts.join("\n"),
      isError: result.timedOut || result.aborted || result.exitCode !== 0,
      details: {
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        ...(result.droppedBytes > 0 && { droppedBytes: result.droppedBytes }),
        ...(result.sandboxBlock !== undefined && { sandboxBlock: result.sandboxBlock.kind }),
        ...(result.unsandboxed && { unsandboxed: true }),
      },
    };
  };
}

/** Starts the command as a background process of the session and returns its id at once. */
async function startInBackground(args: ShellArgs, ctx: ToolCallContext): Promise<ToolOutput> {
  let info: BackgroundProcessInfo;
  try {
    info = await processesOf(ctx).start(ctx.environment, args.command, { tty: args.tty === true });
  } catch (err) {
    if (err instanceof EnvironmentError)
      return { output: `Could not start the command: ${err.message}`, isError: true, errorCode: err.code };
    throw err;
  }
  return {
    output: [
      `Started in the background as ${info.id} (pid ${info.pid ?? "unknown"}${info.tty ? ", under a pseudo-terminal" : ""}).`,
      `Read its output with shell_output (id "${info.id}"), write to its input with shell_input, stop it with shell_kill. It is stopped when the session ends.`,
    ].join("\n"),
    details: { backgroundId: info.id, pid: info.pid },
  };
}

const shellParameters = (defaultMs: number) =>
  Type.Object(
    {
      command: Type.String({ minLength: 1, description: "The command line, run with /bin/bash -c." }),
      timeout_ms: Type.Optional(
        Type.Integer({
          minimum: 1,
          description: `Timeout in milliseconds (default ${defaultMs}, at most ${MAX_TIMEOUT_MS}).`,
        }),
      ),
      description: Type.Optional(
        Type.String({ description: "A short description of what the command does." }),
      ),
      run_in_background: Type.Optional(
        Type.Boolean({
          description:
            "Start the command and return at once with an id, for servers, watchers and long jobs; read it with shell_output, write to it with shell_input, stop it with shell_kill.",
        }),
      ),
      tty: Type.Optional(
        Type.Boolean({
          description:
            "With run_in_background: run under a pseudo-terminal, for programs that prompt or behave differently without one (read -p, REPLs, installers).",
        }),
      ),
    },
    { additionalProperties: false },
  );
type ShellArgs = Static<ReturnType<typeof shellParameters>>;

/** The `shell` tool: runs a bash command and reports its output, exit code and duration. */
export function shellTool(options: ShellToolOptions = {}): RegisteredTool {
  const def = options.defaultTimeoutMs ?? FALLBACK_TIMEOUT_MS;
  return defineBuiltinTool({
    name: "shell",
    description: `Run a command with bash in the working directory and return its combined stdout and stderr, exit code and duration. Stdin is closed and the environment is non-interactive, so commands that prompt fail in the foreground. Default timeout ${def} ms. For a server or anything long-running or interactive, set run_in_background (and tty for programs that need a terminal), then use shell_output, shell_input and shell_kill.`,
    parameters: shellParameters(def),
    execute: executor(options),
    targets: () => ["*"],
  });
}
