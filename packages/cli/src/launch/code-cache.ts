import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";

/**
 * Where a pending cache entry's writer waits for code that is about to change V8's flags
 * (`globalThis[Symbol.for(...)]?.()`), which it must call first: a global, so that such code needs
 * nothing of this module.
 */
export const BEFORE_V8_FLAGS_CHANGE = Symbol.for("attractor.beforeV8FlagsChange");

/**
 * Where compiled code of the command is kept between runs: $XDG_CACHE_HOME/attractor/code-cache
 * (~/.cache/… by default); undefined when ATTRACTOR_CODE_CACHE=off.
 */
export function codeCacheDirectory(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.ATTRACTOR_CODE_CACHE === "off") return undefined;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(base, "attractor", "code-cache");
}

/**
 * Loads a CommonJS file with V8's compiled code for it from `cacheDir`, and returns its exports.
 * Without a usable cache entry (none yet, another Node version, a corrupt file: V8 checks and
 * rejects it) the file compiles as usual and the entry is written when the process exits, with
 * everything the run compiled by then, for the next run. A cache that cannot be read or written
 * costs nothing but the compile.
 */
export function requireWithCodeCache(file: string, cacheDir: string | undefined): unknown {
  const source = readFileSync(file, "utf8");
  const entry = cacheDir === undefined ? undefined : join(cacheDir, cacheKey(file));
  let cached: Buffer | undefined;
  if (entry !== undefined) {
    try {
      cached = readFileSync(entry);
    } catch {
      // Not cached yet.
    }
  }
  // The wrapper Node gives CommonJS modules, the shebang line blanked (it is not JavaScript).
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source.startsWith("#!") ? `//${source}` : source}\n});`;
  // The file must not use import(): code from V8's cache has no module loader for it.
  const script = new Script(wrapped, { filename: file, ...(cached !== undefined && { cachedData: cached }) });
  if (entry !== undefined && (cached === undefined || script.cachedDataRejected === true)) {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      writeEntry(entry, script.createCachedData(), basename(file));
    };
    process.once("exit", write);
    // V8 rejects cached code made under other flags than the reading process's: code that
    // changes a V8 flag (the bash parser does) calls this first, so the entry is made before.
    (globalThis as Record<symbol, unknown>)[BEFORE_V8_FLAGS_CHANGE] = write;
  }
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as unknown };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** Names one build of the file for one Node: a rebuilt file or another Node gets its own entry. */
function cacheKey(file: string): string {
  const info = statSync(file);
  return `${basename(file)}-${info.size}-${Math.floor(info.mtimeMs)}-${process.version}-${process.arch}.v8`;
}

/** Writes the entry whole (a temporary file renamed over it) and drops the file's older entries. */
function writeEntry(entry: string, data: Buffer, fileName: string): void {
  try {
    const dir = dirname(entry);
    mkdirSync(dir, { recursive: true });
    const temporary = `${entry}.${process.pid}.tmp`;
    writeFileSync(temporary, data);
    renameSync(temporary, entry);
    for (const name of readdirSync(dir)) {
      if (name.startsWith(`${fileName}-`) && join(dir, name) !== entry && !name.endsWith(".tmp"))
        rmSync(join(dir, name), { force: true });
    }
  } catch {
    // An unwritable cache only means the next run compiles again.
  }
}
