import type { Runtime, RuntimeUi } from "../runtime/types.js";
import { createScrubber, secretValuesFromEnv } from "../store/scrub.js";
import { createPrinter, type OutputFormat, type TextSink } from "./printers.js";
import { createRunTracker, type HeadlessResult } from "./run-result.js";

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
  readonly prompt: string;
  readonly format: OutputFormat;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** When the process started (performance.now() time origin), for duration_ms. */
  readonly startedAt?: number;
  /** The run's environment: its secret values are redacted from everything printed. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Receives the stop function; main wires it to SIGINT/SIGTERM. */
  readonly onStoppable?: (stop: () => void) => void;
}

/** Runs one task headless: submits it, prints per the format, closes the runtime; resolves to the exit code. */
export async function runHeadless(runtime: Runtime, options: HeadlessOptions): Promise<number> {
  const startedAt = options.startedAt ?? performance.now();
  const scrub = createScrubber(secretValuesFromEnv({ ...process.env, ...options.env }));
  const printer = createPrinter(options.format, options.stdout, options.stderr, scrub);
  const tracker = createRunTracker();
  const unsubscribe = runtime.subscribe((event) => {
    tracker.onEvent(event);
    printer.onEvent(event);
  });
  let interrupted = false;
  options.onStoppable?.(() => {
    interrupted = true;
    void runtime.interrupt();
  });
  const sessionId = runtime.session.id;
  try {
    await runtime.submit(options.prompt);
  } catch (error) {
    tracker.fail(error);
    options.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  try {
    await runtime.close();
  } catch (error) {
    options.stderr.write(
      `warning: closing the session failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  const result: HeadlessResult = tracker.result({
    sessionId,
    provider: runtime.provider,
    model: runtime.model,
    cost: runtime.cost(),
    durationMs: performance.now() - startedAt,
    interrupted,
  });
  printer.finish(result);
  unsubscribe();
  if (interrupted) return EXIT.INTERRUPTED;
  return result.is_error ? EXIT.FAILED : EXIT.OK;
}
