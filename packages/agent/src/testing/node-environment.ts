import { spawn } from "node:child_process";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import type { ExecResult, ExecutionEnvironment } from "../types/environment.js";

/**
 * A small real environment for session tests: node:fs for files and bash in its own process
 * group for commands (abort: SIGTERM to the group, SIGKILL after 2 s).
 */
export function nodeEnvironment(root: string): ExecutionEnvironment {
  const at = (p: string) => path.resolve(root, p);
  const unsupported = async (): Promise<never> => {
    throw new Error("not supported by the test environment");
  };
  return {
    initialize: async () => {},
    cleanup: async () => {},
    workingDirectory: () => root,
    platform: () => process.platform,
    osVersion: () => os.release(),
    resolvePath: at,
    readFile: (p) => readFile(at(p), "utf8"),
    readFileBytes: async (p) => new Uint8Array(await readFile(at(p))),
    writeFile: async (p, c) => {
      await mkdir(path.dirname(at(p)), { recursive: true });
      await writeFile(at(p), c);
    },
    deleteFile: (p) => rm(at(p)),
    fileExists: async (p) => (await stat(at(p)).catch(() => undefined)) !== undefined,
    stat: async (p) => {
      const s = await stat(at(p)).catch(() => undefined);
      return s
        ? {
            isFile: s.isFile(),
            isDirectory: s.isDirectory(),
            isSymbolicLink: false,
            size: s.size,
            mtimeMs: s.mtimeMs,
            mode: s.mode,
          }
        : undefined;
    },
    listDirectory: unsupported,
    grep: unsupported,
    glob: unsupported,
    execCommand: (command, options = {}) =>
      new Promise<ExecResult>((resolve) => {
        const started = performance.now();
        const child = spawn("/bin/bash", ["-c", command], {
          cwd: options.workingDir ? at(options.workingDir) : root,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        let timedOut = false;
        let aborted = false;
        const kill = () => {
          try {
            process.kill(-child.pid!, "SIGTERM");
          } catch {}
          setTimeout(() => {
            try {
              process.kill(-child.pid!, "SIGKILL");
            } catch {}
          }, 2000).unref();
        };
        const timer = setTimeout(() => {
          timedOut = true;
          kill();
        }, options.timeoutMs ?? 10_000);
        const onAbort = () => {
          aborted = true;
          kill();
        };
        options.signal?.addEventListener("abort", onAbort, { once: true });
        child.stdout.on("data", (d: Buffer) => {
          stdout += d;
          options.onOutput?.(d.toString(), "stdout");
        });
        child.stderr.on("data", (d: Buffer) => {
          stderr += d;
          options.onOutput?.(d.toString(), "stderr");
        });
        child.on("error", (err) => {
          clearTimeout(timer);
          resolve({
            stdout,
            stderr: String(err),
            output: String(err),
            exitCode: 127,
            timedOut,
            aborted,
            durationMs: performance.now() - started,
            droppedBytes: 0,
          });
        });
        child.on("close", (code, signal) => {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
          resolve({
            stdout,
            stderr,
            output: stdout + stderr,
            exitCode: code,
            ...(signal ? { signal } : {}),
            timedOut,
            aborted,
            durationMs: performance.now() - started,
            droppedBytes: 0,
          });
        });
      }),
  };
}
