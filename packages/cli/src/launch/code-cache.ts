import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { cachedDataVersionTag } from "node:v8";
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
 * The first line of a CommonJS file built to be loaded from the code cache (import() compiled to
 * require(): code from V8's cache has no module loader for import()). A file required by a
 * relative path is loaded through the cache only when it starts with this line.
 */
export const CACHEABLE_MARK = "/* attractor: loadable from V8's code cache */";

/**
 * The folder, beside the bundle, of the code cache the build makes and the package ships, for a
 * first run (a new container, CI job or fleet task) that has no cache of its own yet.
 */
export const SHIPPED_CACHE_FOLDER = "code-cache";

/** The shipped cache's index: which V8 made it, and for which build of which files. */
export interface ShippedCacheManifest {
  /** v8.cachedDataVersionTag() of the V8 that made it: its version and the flags that matter. */
  readonly versionTag: number;
  /** Each file's size when the entry (`<file>.v8`) was made, so an entry names one build of it. */
  readonly files: Readonly<Record<string, number>>;
}

/**
 * ATTRACTOR_CODE_CACHE=refresh: write every file's entry at exit even when one was read (the build
 * uses it to add what a second run compiles to what a first run cached).
 */
const refresh = (env: Readonly<Record<string, string | undefined>>) => env.ATTRACTOR_CODE_CACHE === "refresh";

/** Entries to write when the process exits (or before a V8 flag changes). */
const pending: (() => void)[] = [];
/** A V8 flag changed: code compiled from now on would be cached under flags no next run starts with. */
let flagsChanged = false;

function writePending(): void {
  for (const write of pending.splice(0)) write();
}

/**
 * V8 rejects cached code made under other flags than the reading process's: code that changes a
 * V8 flag (the bash parser does) calls this first, so the entries are made before, and none is
 * made after.
 */
function beforeFlagsChange(): void {
  writePending();
  flagsChanged = true;
}

/**
 * Loads a CommonJS file with V8's compiled code for it from `cacheDir`, and returns its exports.
 * Without a usable cache entry (none yet, another Node version, a corrupt file: V8 checks and
 * rejects it) the file compiles as usual and the entry is written when the process exits, with
 * everything the run compiled by then, for the next run. The CommonJS files it requires by a
 * relative path (the bundle's vendor files) are loaded the same way, once each, when they start
 * with CACHEABLE_MARK, and by Node otherwise. A cache that cannot be read or written costs nothing
 * but the compile.
 */
export function requireWithCodeCache(file: string, cacheDir: string | undefined): unknown {
  return load(file, cacheDir, false);
}

function load(file: string, cacheDir: string | undefined, markedOnly: boolean): unknown {
  // Node's own module registry: a file is one module whichever loader reaches it first.
  const registry = createRequire(file).cache;
  const known = registry[file];
  if (known !== undefined) return known.exports;
  // Decoded as UTF-8 into V8's heap (one byte a character for an ASCII file, as the bundles are).
  // Not as latin1: Node makes a file this size an external string, and code compiled from an
  // external source ran a tool round about 8% slower (bench/round-overhead.mjs). Read as bytes
  // and then decoded: Node 20's readFileSync(file, "utf8") took 7-10 ms for the 2.3 MB bundle,
  // the two steps 3-5 ms, with the same one-byte string.
  const source = readFileSync(file).toString("utf8");
  if (markedOnly && !source.startsWith(CACHEABLE_MARK)) return createRequire(file)(file);
  const entry = cacheDir === undefined ? undefined : join(cacheDir, cacheKey(file));
  let cached: Buffer | undefined;
  if (entry !== undefined) {
    try {
      cached = readFileSync(entry);
    } catch {
      // Not cached yet.
    }
  }
  // No entry of the user's own (a first run): the one the package ships, if this V8 can use it.
  // When V8 still rejects it, the user's own is written at exit as without it.
  const shipped =
    cached === undefined && !refresh(process.env) ? shippedEntry(file, source.length) : undefined;
  cached ??= shipped;
  // The wrapper Node gives CommonJS modules, the shebang line blanked (it is not JavaScript).
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source.startsWith("#!") ? `//${source}` : source}\n});`;
  // The file must not use import(): code from V8's cache has no module loader for it.
  const script = new Script(wrapped, { filename: file, ...(cached !== undefined && { cachedData: cached }) });
  (globalThis as Record<symbol, unknown>)[BEFORE_V8_FLAGS_CHANGE] = beforeFlagsChange;
  if (
    entry !== undefined &&
    !flagsChanged &&
    (cached === undefined || script.cachedDataRejected === true || refresh(process.env))
  ) {
    if (pending.length === 0) process.once("exit", writePending);
    pending.push(() => writeEntry(entry, script.createCachedData(), basename(file)));
  }
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  const module = new Module(file);
  module.filename = file;
  module.paths = createRequire(file).resolve.paths("x") ?? [];
  registry[file] = module;
  try {
    run.call(module.exports, module.exports, cachingRequire(file, cacheDir), module, file, dirname(file));
  } catch (error) {
    delete registry[file];
    throw error;
  }
  module.loaded = true;
  return module.exports;
}

/** Node's require for `file`, except that relative CommonJS files built for it load through the code cache. */
function cachingRequire(file: string, cacheDir: string | undefined): NodeJS.Require {
  const base = createRequire(file);
  const require = ((id: string) =>
    id.startsWith(".") && id.endsWith(".cjs")
      ? load(join(dirname(file), id), cacheDir, true)
      : base(id)) as NodeJS.Require;
  return Object.assign(require, {
    resolve: base.resolve,
    cache: base.cache,
    extensions: base.extensions,
    main: base.main,
  });
}

/** Manifests of shipped caches read by this process, by folder (undefined: none usable). */
const manifests = new Map<string, ShippedCacheManifest | undefined>();

/**
 * The shipped entry for `file` (of `length` characters), read only when the manifest says it was
 * made by a V8 of this version and flags for this build of the file; V8 checks it again.
 */
function shippedEntry(file: string, length: number): Buffer | undefined {
  const folder = join(dirname(file), SHIPPED_CACHE_FOLDER);
  if (!manifests.has(folder)) {
    let manifest: ShippedCacheManifest | undefined;
    try {
      const read = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8")) as ShippedCacheManifest;
      if (read.versionTag === cachedDataVersionTag()) manifest = read;
    } catch {
      // None shipped, or unreadable: compile.
    }
    manifests.set(folder, manifest);
  }
  const name = basename(file);
  if (manifests.get(folder)?.files[name] !== length) return undefined;
  try {
    return readFileSync(join(folder, `${name}.v8`));
  } catch {
    return undefined;
  }
}

/** Names one build of the file for one Node: a rebuilt file or another Node gets its own entry. */
function cacheKey(file: string): string {
  const info = statSync(file);
  return `${basename(file)}-${info.size}-${Math.floor(info.mtimeMs)}-${process.version}-${process.arch}.v8`;
}

/** How many builds of one file keep an entry. */
const KEPT_BUILDS = 3;

/** Writes the entry whole (a temporary file renamed over it) and drops the file's oldest entries. */
function writeEntry(entry: string, data: Buffer, fileName: string): void {
  try {
    const dir = dirname(entry);
    mkdirSync(dir, { recursive: true });
    const temporary = `${entry}.${process.pid}.tmp`;
    writeFileSync(temporary, data);
    renameSync(temporary, entry);
    // Entries of other builds of the file: the newest few stay, so that two installs used in turn
    // (a global one and a project's) do not evict each other's at every run.
    const others = readdirSync(dir)
      .filter(
        (name) => name.startsWith(`${fileName}-`) && join(dir, name) !== entry && !name.endsWith(".tmp"),
      )
      .map((name) => ({
        path: join(dir, name),
        time: statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0,
      }))
      .sort((a, b) => b.time - a.time);
    for (const old of others.slice(KEPT_BUILDS - 1)) rmSync(old.path, { force: true });
  } catch {
    // An unwritable cache only means the next run compiles again.
  }
}
