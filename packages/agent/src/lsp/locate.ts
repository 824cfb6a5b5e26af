import { dirname, isAbsolute, join, parse, relative } from "node:path";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { LanguageServerConfig } from "./servers.js";

/** Directories from `dir` up to the file-system root, nearest first. */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  let current = dir;
  const { root } = parse(dir);
  for (;;) {
    out.push(current);
    if (current === root) return out;
    const up = dirname(current);
    if (up === current) return out;
    current = up;
  }
}

/**
 * The workspace root of a file for a server: for the first of its root markers found in an
 * ancestor directory, that directory; the working directory when none is found.
 */
export async function findWorkspaceRoot(
  env: ExecutionEnvironment,
  server: LanguageServerConfig,
  absoluteFile: string,
): Promise<string> {
  const dirs = ancestors(dirname(absoluteFile));
  for (const marker of server.rootMarkers ?? []) {
    for (const dir of dirs) {
      if (await env.fileExists(join(dir, marker))) return dir;
    }
  }
  return env.workingDirectory();
}

/** The nearest `relative` path at or above `from`, if one exists. */
export async function findUpwards(
  env: ExecutionEnvironment,
  from: string,
  relative: string,
): Promise<string | undefined> {
  for (const dir of ancestors(from)) {
    const candidate = join(dir, relative);
    if (await env.fileExists(candidate)) return candidate;
  }
  return undefined;
}

/** Whether a path lies in the environment's working directory (the project). */
export function insideProject(env: ExecutionEnvironment, path: string): boolean {
  const rel = relative(env.workingDirectory(), path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** How a server's program may be looked up. */
export interface ServerLookup {
  /**
   * Whether the project is trusted. Until it is, nothing inside the project is run: no
   * node_modules/.bin, no PATH entry inside it, no configured path into it. A cloned repository
   * could otherwise run its own script as soon as the agent opens a file.
   */
  readonly trusted: boolean;
}

/**
 * Where a server's program is: a path as given (relative to the working directory), the nearest
 * node_modules/.bin above `from` (trusted projects only), or PATH in the environment; undefined
 * when it is nowhere it may be taken from.
 */
export async function resolveServerCommand(
  env: ExecutionEnvironment,
  command: string,
  from: string,
  lookup: ServerLookup = { trusted: false },
): Promise<string | undefined> {
  if (command.includes("/")) {
    const abs = isAbsolute(command) ? command : env.resolvePath(command);
    if (!lookup.trusted && insideProject(env, abs)) return undefined;
    return (await env.fileExists(abs)) ? abs : undefined;
  }
  if (lookup.trusted) {
    const local = await findUpwards(env, from, join("node_modules", ".bin", command));
    if (local) return local;
  }
  // PATH is read from a command but searched with the environment's file operations: a sandboxed
  // command may not see every directory of its PATH (a private /tmp), while the server is started
  // outside the sandbox and can use them.
  const printed = await env.execCommand(`printf '%s' "$PATH"`, { timeoutMs: 5000 }).catch(() => undefined);
  for (const dir of (printed?.exitCode === 0 ? printed.stdout : "").split(":")) {
    if (!isAbsolute(dir) || (!lookup.trusted && insideProject(env, dir))) continue;
    const candidate = join(dir, command);
    if (await env.fileExists(candidate)) return candidate;
  }
  return undefined;
}
