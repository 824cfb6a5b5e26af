import { NEEDS_INTERACTIVE_UI, runCli } from "./run-cli.js";

export { NEEDS_INTERACTIVE_UI };

const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/**
 * Runs the attractor command line in this process, SIGINT and SIGTERM stopping a headless task
 * (a second signal exits at once); resolves to the exit code, or NEEDS_INTERACTIVE_UI when
 * `interactiveUi` is false and the run is an interactive one.
 */
export function runCommand(
  argv: readonly string[],
  options: { readonly interactiveUi: boolean },
): Promise<number> {
  let stopRequested = 0;
  return runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    ...(!options.interactiveUi && { interactiveUi: false }),
    onStoppable: (stop) => {
      for (const signal of signals) {
        process.on(signal, () => {
          // The first signal stops the task cleanly (transcript flushed, result printed); a second one exits now.
          if (stopRequested++ > 0) process.exit(signal === "SIGINT" ? 130 : 143);
          stop();
        });
      }
    },
  }).catch((error: unknown) => {
    process.stderr.write(
      `attractor: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  });
}
