import {
  createRunTracker,
  type HeadlessResult,
  type Runtime,
  type RuntimeUi,
  updateItem,
} from "@attractor/runtime";
import { createScrubber, secretValuesFromEnv } from "@attractor/runtime/store";
import { parseInput } from "../commands/parse.js";
import { visibleControls } from "../terminal/visible-controls.js";
import { createPrinter, type OutputFormat, type TextSink } from "./printers.js";

/** Exit codes of the attractor command. */
export const EXIT = {
  /** The task ran to its end. */
  OK: 0,
  /** The run failed: provider error, turn limit, interruption. */
  FAILED: 1,
  /** Bad usage or configuration: nothing was run. */
  USAGE: 2,
  /** Stopped by SIGINT (128 + 2), as shells report it. */
  INTERRUPTED: 130,
} as const;

/**
 * The RuntimeUi of a run without a user. The runtime is created headless, so the permission
 * policy denies what would ask (with a message the model can act on) and ask_user tells the
 * model nobody is there; these answers are the fallback should anything still ask.
 */
export const HEADLESS_UI: RuntimeUi = {
  askPermission: async () => "deny",
  askUser: async () =>
    "No user is present: this is a non-interactive run. Make a reasonable assumption and continue.",
};

export interface HeadlessOptions {
  /** The task; or, with `messages`, nothing. */
  readonly prompt?: string;
  /** User messages to run one after another (`--input-format stream-json`), each with its result. */
  readonly messages?: AsyncIterable<string>;
  readonly format: OutputFormat;
  /** stream-json: add attractor's own events as `attractor_event` lines. */
  readonly verbose?: boolean;
  /** The command's version, for stream-json's init line. */
  readonly version?: string;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** When the process started (performance.now() time origin), for duration_ms. */
  readonly startedAt?: number;
  /** The run's environment: its secret values are redacted from everything printed. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Receives the stop function; main wires it to SIGINT/SIGTERM. */
  readonly onStoppable?: (stop: () => void) => void;
}

/**
 * Runs a task (or each message of `messages`, in order) headless: submits it, prints per the
 * format, closes the runtime; resolves to the exit code (1 when any message's run failed).
 */
export async function runHeadless(runtime: Runtime, options: HeadlessOptions): Promise<number> {
  let startedAt = options.startedAt ?? performance.now();
  const printer = createPrinter(options.format, options.stdout, options.stderr, {
    ...(options.verbose !== undefined && { verbose: options.verbose }),
    scrub: createScrubber(secretValuesFromEnv({ ...process.env, ...options.env })),
    init: () => ({
      cwd: runtime.projectDir,
      tools: runtime.session.profile.toolRegistry.names(),
      model: runtime.model,
      provider: runtime.provider,
      permissionMode: runtime.mode,
      version: options.version ?? "unknown",
      mcpServers: (runtime.mcp?.servers() ?? []).map((s) => ({ name: s.name, status: s.status })),
    }),
  });
  let tracker = createRunTracker();
  const unsubscribe = runtime.subscribe((update) => {
    const event = updateItem(update);
    tracker.onEvent(event);
    printer.onEvent(event);
  });
  let interrupted = false;
  options.onStoppable?.(() => {
    interrupted = true;
    void runtime.interrupt();
  });
  let failed = false;
  // A run never ends while a subagent it started in the background still works (unless stopped:
  // an interrupt reaches the children too, and their wait then ends).
  const childrenDone = async () => {
    const children = runtime.session.subagents;
    for (;;) {
      const running = children.list().filter((child) => child.status === "running");
      if (running.length === 0 || interrupted) return;
      await Promise.all(running.map((child) => children.wait(child.id).catch(() => undefined)));
    }
  };
  const runOne = async (prompt: string, last: boolean) => {
    try {
      await submitOrRunCommand(runtime, prompt);
    } catch (error) {
      tracker.fail(error);
      // An error's message may quote a server or a tool: shown inert, like all other output.
      options.stderr.write(
        `error: ${visibleControls(error instanceof Error ? error.message : String(error))}\n`,
      );
    }
    if (last) {
      await childrenDone();
      try {
        await runtime.close();
      } catch (error) {
        options.stderr.write(
          `warning: closing the session failed: ${visibleControls(error instanceof Error ? error.message : String(error))}\n`,
        );
      }
    }
    const result: HeadlessResult = tracker.result({
      sessionId: runtime.session.id,
      provider: runtime.provider,
      model: runtime.model,
      cost: runtime.cost(),
      durationMs: performance.now() - startedAt,
      interrupted,
    });
    printer.finish(result);
    if (result.is_error) failed = true;
    tracker = createRunTracker();
    startedAt = performance.now();
  };
  // The first model request would wait for the MCP servers anyway; waiting before it lets the
  // stream's init line report them with their tools.
  await runtime.mcp?.ready();
  if (options.messages) {
    let any = false;
    for await (const message of options.messages) {
      if (interrupted) break;
      any = true;
      await runOne(message, false);
    }
    await childrenDone();
    await runtime.close().catch(() => {});
    if (!any) options.stderr.write("warning: no user message arrived on stdin\n");
  } else {
    await runOne(options.prompt ?? "", true);
  }
  unsubscribe();
  if (interrupted) return EXIT.INTERRUPTED;
  return failed ? EXIT.FAILED : EXIT.OK;
}

/** `attractor -p "/name args"` runs a custom command; any other text is the task itself. */
async function submitOrRunCommand(runtime: Runtime, prompt: string): Promise<void> {
  const parsed = parseInput(prompt);
  if (parsed.kind === "command" && runtime.runCustomCommand) {
    const custom = runtime.customCommands?.find((c) => c.name === parsed.name);
    if (custom) return runtime.runCustomCommand(custom.name, parsed.args);
  }
  return runtime.submit(prompt);
}
