import type { ExecutionEnvironment } from "../types/environment.js";
import { ReadOnlyError } from "./errors.js";

/**
 * The same environment with writes and deletes refused (ReadOnlyError, "Write operations are
 * disabled in read-only mode"). Commands still run: a shell can change files, so hosts that need
 * a fully read-only session also withhold the shell tool (see ToolRegistry.readOnly()).
 */
export function readOnlyEnvironment(inner: ExecutionEnvironment): ExecutionEnvironment {
  return {
    initialize: () => inner.initialize(),
    cleanup: () => inner.cleanup(),
    workingDirectory: () => inner.workingDirectory(),
    platform: () => inner.platform(),
    osVersion: () => inner.osVersion(),
    resolvePath: (p) => inner.resolvePath(p),
    readFile: (p, o) => inner.readFile(p, o),
    readFileBytes: (p, o) => inner.readFileBytes(p, o),
    writeFile: async (p) => {
      throw new ReadOnlyError(p);
    },
    deleteFile: async (p) => {
      throw new ReadOnlyError(p);
    },
    fileExists: (p) => inner.fileExists(p),
    stat: (p) => inner.stat(p),
    listDirectory: (p, d) => inner.listDirectory(p, d),
    execCommand: (c, o) => inner.execCommand(c, o),
    grep: (pattern, p, o) => inner.grep(pattern, p, o),
    glob: (pattern, p, o) => inner.glob(pattern, p, o),
    ...(inner.startProcess && { startProcess: inner.startProcess.bind(inner) }),
  };
}
