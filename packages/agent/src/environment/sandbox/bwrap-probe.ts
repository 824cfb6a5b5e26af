import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { bwrapIsolationArgs } from "./bwrap-args.js";

/** Whether bubblewrap can sandbox commands on this machine, and how. */
export type BubblewrapStatus =
  | {
      readonly available: true;
      /** The absolute path of the bwrap binary. */
      readonly path: string;
      /** Whether nested user namespaces can be turned off (bwrap 0.8 and later). */
      readonly disableUserns: boolean;
    }
  | { readonly available: false; readonly reason: string };

const PROBE_TIMEOUT_MS = 10_000;
const cache = new Map<string, Promise<BubblewrapStatus>>();

/** The first executable `bwrap` on the PATH given, or undefined. */
export function findBubblewrap(path: string | undefined): string | undefined {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "bwrap");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here: try the next directory.
    }
  }
  return undefined;
}

function run(file: string, args: readonly string[]): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS, encoding: "utf8" }, (error, _stdout, stderr) => {
      resolve({ ok: error === null, stderr: (stderr || error?.message || "").trim() });
    });
  });
}

function probeArgs(disableUserns: boolean): string[] {
  return [
    ...bwrapIsolationArgs(false, disableUserns),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--",
    "/bin/true",
  ];
}

async function probe(bwrap: string | undefined): Promise<BubblewrapStatus> {
  if (process.platform !== "linux") return { available: false, reason: "bubblewrap runs on Linux only" };
  if (bwrap === undefined)
    return { available: false, reason: "bwrap (bubblewrap) is not installed or not on the PATH" };
  const full = await run(bwrap, probeArgs(true));
  if (full.ok) return { available: true, path: bwrap, disableUserns: true };
  // Versions before 0.8 do not know --disable-userns; the rest of the isolation still holds.
  const older = await run(bwrap, probeArgs(false));
  if (older.ok) return { available: true, path: bwrap, disableUserns: false };
  return {
    available: false,
    reason: `bwrap cannot create its namespaces here (user namespaces may be disabled): ${older.stderr || full.stderr}`,
  };
}

/**
 * Finds bwrap on the PATH and runs it once with the sandbox's own isolation options; the answer
 * is cached per binary for the life of the process, so only the first caller waits (a few ms).
 */
export function probeBubblewrap(path: string | undefined = process.env.PATH): Promise<BubblewrapStatus> {
  const bwrap = findBubblewrap(path);
  const key = bwrap ?? "";
  let status = cache.get(key);
  if (status === undefined) {
    status = probe(bwrap);
    cache.set(key, status);
  }
  return status;
}
