#!/usr/bin/env node
import { runCli } from "./launch/run-cli.js";

// The entry point of the `attractor` command: everything else loads on demand, so headless runs
// never load the terminal UI and `--version` loads neither the agent nor the model client.
const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

// A reader that went away (`attractor -p … | head -1`) ends the run the Unix way, quietly:
// every completed turn is already stored.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(141);
  throw error;
});
let stopRequested = 0;

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
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

// Leave once the output is flushed, even if a library left a timer or socket open.
process.exitCode = code;
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
