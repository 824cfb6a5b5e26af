import type { ExecutionEnvironment, StartProcessOptions } from "../types/environment.js";

/** One environment call as the logging wrapper reports it. */
export interface EnvironmentLogEntry {
  readonly method: string;
  /** The path or command the call was about. */
  readonly target?: string;
  readonly durationMs: number;
  readonly ok: boolean;
  /** The error's message when the call failed. */
  readonly error?: string;
}

/** The same environment, reporting each asynchronous call with its duration to `sink`. */
export function loggingEnvironment(
  inner: ExecutionEnvironment,
  sink: (entry: EnvironmentLogEntry) => void,
): ExecutionEnvironment {
  const logged = async <T>(method: string, target: string | undefined, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const report = (ok: boolean, error?: string): void => {
      try {
        sink({
          method,
          ...(target !== undefined && { target }),
          durationMs: performance.now() - started,
          ok,
          ...(error !== undefined && { error }),
        });
      } catch {
        // A broken sink must not break the environment.
      }
    };
    try {
      const value = await run();
      report(true);
      return value;
    } catch (err) {
      report(false, err instanceof Error ? err.message : String(err));
      throw err;
    }
  };
  return {
    initialize: () => logged("initialize", undefined, () => inner.initialize()),
    cleanup: () => logged("cleanup", undefined, () => inner.cleanup()),
    workingDirectory: () => inner.workingDirectory(),
    platform: () => inner.platform(),
    osVersion: () => inner.osVersion(),
    resolvePath: (p) => inner.resolvePath(p),
    readFile: (p, o) => logged("readFile", p, () => inner.readFile(p, o)),
    readFileBytes: (p, o) => logged("readFileBytes", p, () => inner.readFileBytes(p, o)),
    writeFile: (p, c) => logged("writeFile", p, () => inner.writeFile(p, c)),
    deleteFile: (p) => logged("deleteFile", p, () => inner.deleteFile(p)),
    fileExists: (p) => logged("fileExists", p, () => inner.fileExists(p)),
    stat: (p) => logged("stat", p, () => inner.stat(p)),
    listDirectory: (p, d) => logged("listDirectory", p, () => inner.listDirectory(p, d)),
    execCommand: (c, o) => logged("execCommand", c, () => inner.execCommand(c, o)),
    grep: (pattern, p, o) => logged("grep", p, () => inner.grep(pattern, p, o)),
    glob: (pattern, p, o) => logged("glob", p ?? ".", () => inner.glob(pattern, p, o)),
    ...(inner.startProcess && {
      startProcess: (c: string, a: readonly string[], o?: StartProcessOptions) =>
        logged("startProcess", c, () => inner.startProcess!(c, a, o)),
    }),
  };
}
