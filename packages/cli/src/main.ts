#!/usr/bin/env node
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The entry point of the `attractor` command: everything else loads on demand, so headless runs
// never load the terminal UI and `--version` loads neither the agent nor the model client.

// A reader that went away (`attractor -p … | head -1`) ends the run the Unix way, quietly:
// every completed turn is already stored.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(141);
  throw error;
});

const argv = process.argv.slice(2);
const QUICK_FLAGS = new Set(["-v", "--version", "-h", "--help"]);
// Beside the bundled command, the headless command as one CommonJS file: Node 20 keeps no
// compiled code of ES modules between runs, and compiling the modules a headless run loads is
// most of its start-up, so that file loads with V8's code cache (see launch/code-cache.ts).
// An interactive run (no -p, a terminal on stdin) takes the ES modules, which have the UI.
const headlessBundle = fileURLToPath(new URL("./command-headless.cjs", import.meta.url));
let code: number | undefined;
// `--version`, `--help` and the subcommands are quick either way: the ES modules load less for them.
const quick =
  argv[0] === "mcp" || argv[0] === "fleet" || argv[0] === "acp" || argv.some((a) => QUICK_FLAGS.has(a));
const headlessRun =
  argv.includes("-p") || argv.includes("--print") || (process.stdin.isTTY !== true && !quick);
if (headlessRun && existsSync(headlessBundle)) {
  const { codeCacheDirectory, requireWithCodeCache } = await import("./launch/code-cache.js");
  const cacheDir = codeCacheDirectory(process.env);
  if (cacheDir !== undefined) {
    const headless = requireWithCodeCache(headlessBundle, cacheDir) as typeof import("./launch/command.js");
    code = await headless.runCommand(argv, { interactiveUi: false });
    if (code === headless.NEEDS_INTERACTIVE_UI) code = undefined;
  }
}
code ??= await (await import("./launch/command.js")).runCommand(argv, { interactiveUi: true });

// Leave once the output is flushed, even if a library left a timer or socket open.
process.exitCode = code;
const exitCode = code;
process.stdout.write("", () => process.stderr.write("", () => process.exit(exitCode)));
