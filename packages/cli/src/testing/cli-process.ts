import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const CLI_PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PACKAGES = resolve(CLI_PACKAGE, "..");

/** The bundled command, as `npm start` and the `attractor` bin run it. */
export const CLI_PATH = join(CLI_PACKAGE, "dist", "bundle", "attractor.js");

/** The newest modification time of the compiled sources under a directory (tests excluded). */
function newestSource(dir: string): { file: string; mtimeMs: number } {
  let newest = { file: "", mtimeMs: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = newestSource(path);
      if (inner.mtimeMs > newest.mtimeMs) newest = inner;
    } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
      const { mtimeMs } = statSync(path);
      if (mtimeMs > newest.mtimeMs) newest = { file: path, mtimeMs };
    }
  }
  return newest;
}

/**
 * Fails loudly when the CLI was not built, or was built before its sources last changed: these
 * tests run the real command, and a stale build would test old code.
 */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`${CLI_PATH} is missing: run \`npm run build\` before these tests (CI builds first).`);
  }
  // The bundle is made from every package's compiled output, after it.
  const bundled = statSync(CLI_PATH).mtimeMs;
  for (const pkg of ["llm", "agent", "fleet", "cli"]) {
    const built = statSync(join(PACKAGES, pkg, "dist", ".tsbuildinfo"), { throwIfNoEntry: false });
    const source = newestSource(join(PACKAGES, pkg, "src"));
    if (!built || source.mtimeMs > built.mtimeMs || built.mtimeMs > bundled) {
      throw new Error(
        `packages/${pkg}/dist or the bundled command is older than ${source.file}: run \`npm run build\` before these tests.`,
      );
    }
  }
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRun {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
}

/**
 * PATH without node_modules/.bin directories (which npm and npx add): the language servers
 * installed for tests are not found, so edits of the fixtures' JavaScript files start none.
 */
export function pathWithoutPackageBins(): string {
  const dirs = (process.env.PATH ?? "/usr/bin:/bin").split(":");
  return dirs.filter((d) => !/[\\/]node_modules[\\/]\.bin[\\/]?$/.test(d)).join(":");
}

/** A clean environment: no API keys from the machine, a private HOME and ATTRACTOR_HOME. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: pathWithoutPackageBins(),
    HOME: join(home, "user"),
    ATTRACTOR_HOME: join(home, "attractor"),
    LANG: "C.UTF-8",
    ...extra,
  };
}

export interface CliOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly input?: string;
  readonly nodeArgs?: readonly string[];
  /** The command's entry file; the built bundle by default. */
  readonly entry?: string;
}

/** Starts the CLI; stdin gets `input` (then EOF) or nothing (EOF at once, not a terminal). */
export function startCli(args: readonly string[], options: CliOptions): CliRun {
  const entry = options.entry ?? CLI_PATH;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input !== undefined ? "pipe" : "ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const done = new Promise<CliResult>((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Runs the CLI to its end. */
export function runCliProcess(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).done;
}

/** A temp directory with a small project whose add() subtracts, and a test that catches it. */
export async function buggyProject(): Promise<{
  root: string;
  project: string;
  remove: () => Promise<void>;
}> {
  const root = await mkdtemp(join(tmpdir(), "attractor-cli-"));
  const project = join(root, "project");
  await mkdir(join(project, "src"), { recursive: true });
  await mkdir(join(root, "user"), { recursive: true });
  await writeFile(join(project, "src", "math.js"), BUGGY_MATH);
  await writeFile(join(project, "test.js"), TEST_JS);
  // A command just stopped may still be writing its transcript: removal retries on ENOTEMPTY.
  return {
    root,
    project,
    remove: () => rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }),
  };
}

export const BUGGY_LINE = "  return a - b;";
export const FIXED_LINE = "  return a + b;";
export const BUGGY_MATH = `function add(a, b) {\n${BUGGY_LINE}\n}\n\nmodule.exports = { add };\n`;
export const FIXED_MATH = BUGGY_MATH.replace(BUGGY_LINE, FIXED_LINE);
export const TEST_JS = `const { add } = require("./src/math.js");
const got = add(2, 3);
if (got !== 5) {
  console.error("FAIL: add(2, 3) returned " + got);
  process.exit(1);
}
console.log("PASS: add(2, 3) = 5");
`;
