import { Type } from "@sinclair/typebox";
import type {
  BackgroundProcessInfo,
  BackgroundProcessTable,
  BackgroundRead,
} from "../../types/background-process.js";
import type { RegisteredTool, ToolCallContext, ToolOutput } from "../../types/tool.js";
import { defineBuiltinTool } from "../define-tool.js";
import { ArgumentError, ToolError } from "../shared/tool-errors.js";

/** The session's background processes, or a clear error where the host gave none. */
export function processesOf(ctx: ToolCallContext): BackgroundProcessTable {
  if (ctx.processes === undefined)
    throw new ToolError(
      "background_unavailable",
      "Background processes are not available here; run the command in the foreground instead.",
    );
  return ctx.processes;
}

/** The one-line state of a process: running, or how it ended. */
function describeState(info: BackgroundProcessInfo): string {
  if (info.running) return `still running (pid ${info.pid ?? "unknown"})`;
  if (info.exitCode !== null) return `exited with code ${info.exitCode}`;
  return `killed by ${info.signal ?? "a signal"}`;
}

function readOutput(read: BackgroundRead, filtered: boolean): ToolOutput {
  const { info } = read;
  const parts = [`Process ${info.id} (${info.command}): ${describeState(info)}.`];
  if (read.droppedChars > 0) parts.push(`[${read.droppedChars} characters of older output were dropped]`);
  const body = read.output.replace(/\n$/, "");
  parts.push(body === "" ? (filtered ? "No new output matched the filter." : "No new output.") : body);
  return {
    output: parts.join("\n"),
    details: { id: info.id, running: info.running, exitCode: info.exitCode },
  };
}

const waitMs = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 60_000,
    description:
      "Wait up to this many milliseconds for output to arrive and settle, or the process to exit (default 0).",
  }),
);

/** `shell_output`: what a background process printed since the last read, and whether it runs. */
export function shellOutputTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "shell_output",
    description:
      "Read what a background process (started with shell's run_in_background) printed since the last read, and whether it still runs or its exit code. Optionally keep only lines matching a regular expression (the other lines are consumed).",
    parameters: Type.Object(
      {
        id: Type.String({ minLength: 1, description: "The background process's id, e.g. bg1." }),
        filter: Type.Optional(
          Type.String({ minLength: 1, description: "A regular expression lines must match to be shown." }),
        ),
        wait_ms: waitMs,
      },
      { additionalProperties: false },
    ),
    readOnly: true,
    execute: async (args, ctx) => {
      let filter: RegExp | undefined;
      if (args.filter !== undefined) {
        try {
          filter = new RegExp(args.filter);
        } catch (err) {
          throw new ArgumentError(
            `filter is not a valid regular expression: ${(err as Error).message}`,
            "filter",
          );
        }
      }
      const read = await processesOf(ctx).read(args.id, {
        ...(filter !== undefined && { filter }),
        ...(args.wait_ms !== undefined && { waitMs: args.wait_ms }),
        ...(ctx.signal !== undefined && { signal: ctx.signal }),
      });
      return readOutput(read, filter !== undefined);
    },
  });
}

/** `shell_input`: writes to a background process's standard input and returns what it printed next. */
export function shellInputTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "shell_input",
    description:
      "Write text to the standard input of a background process (answer a prompt, drive a REPL), then return what it printed in reply. Include a newline (\\n) to submit a line. Start programs that need a terminal with shell's tty: true.",
    parameters: Type.Object(
      {
        id: Type.String({ minLength: 1, description: "The background process's id, e.g. bg1." }),
        text: Type.String({ description: 'The text to write, e.g. "yes\\n".' }),
        wait_ms: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 60_000,
            description:
              "Wait up to this many milliseconds for the reply to arrive and settle (default 2000).",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    targets: () => ["*"],
    execute: async (args, ctx) => {
      const processes = processesOf(ctx);
      await processes.write(args.id, args.text);
      const read = await processes.read(args.id, {
        waitMs: args.wait_ms ?? 2_000,
        ...(ctx.signal !== undefined && { signal: ctx.signal }),
      });
      return readOutput(read, false);
    },
  });
}

/** `shell_kill`: stops a background process and everything it started. */
export function shellKillTool(): RegisteredTool {
  return defineBuiltinTool({
    name: "shell_kill",
    description:
      "Stop a background process and everything it started (SIGTERM, then SIGKILL after 2 seconds). Returns its last output.",
    parameters: Type.Object(
      { id: Type.String({ minLength: 1, description: "The background process's id, e.g. bg1." }) },
      { additionalProperties: false },
    ),
    targets: () => ["*"],
    execute: async (args, ctx) => {
      const processes = processesOf(ctx);
      const before = await processes.read(args.id);
      const wasRunning = before.info.running;
      const info = await processes.stop(args.id);
      const last = (before.output + (await processes.read(args.id)).output).replace(/\n$/, "");
      return {
        output: [
          wasRunning
            ? `Stopped process ${info.id} (${info.command}).`
            : `Process ${info.id} had already ${describeState(info)}.`,
          ...(last !== "" ? ["Its last output:", last] : []),
        ].join("\n"),
        details: { id: info.id, running: false, exitCode: info.exitCode },
      };
    },
  });
}

/** The three tools that work on background processes, in the order they are offered. */
export function backgroundProcessTools(): RegisteredTool[] {
  return [shellOutputTool(), shellInputTool(), shellKillTool()];
}
