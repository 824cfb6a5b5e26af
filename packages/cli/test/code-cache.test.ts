import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cachedDataVersionTag } from "node:v8";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CACHEABLE_MARK, codeCacheDirectory, SHIPPED_CACHE_FOLDER } from "../src/launch/code-cache.js";
import { requireBuiltCli } from "../src/testing/index.js";

// The loader of the headless command bundle, in processes of its own (the cache is written when a
// process exits): a CommonJS file runs the same with or without its cache entry, the entry is
// written once and then used, and a corrupt, stale or unwritable cache costs only a compile.

const LOADER = pathToFileURL(
  resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "launch", "code-cache.js"),
).href;

beforeAll(() => requireBuiltCli());

let root: string;
let file: string;
let cacheDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "attractor-code-cache-"));
  file = join(root, "program.cjs");
  cacheDir = join(root, "cache");
  await writeProgram("first");
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function writeProgram(word: string): Promise<void> {
  // Enough code for V8 to keep, and a function that runs, so the entry holds compiled code.
  const helpers = Array.from({ length: 200 }, (_, i) => `function helper${i}(x) { return x * ${i} + 1; }`);
  await writeFile(
    file,
    `#!/usr/bin/env node\n${helpers.join("\n")}\nmodule.exports = { word: ${JSON.stringify(word)}, sum: helper7(3) + helper199(1), dir: __dirname, required: typeof require("node:path").join };\n`,
  );
}

/** Runs the loader on `target` (the program) in a child process; resolves with what it exported. */
function load(
  dir: string | "no cache" = cacheDir,
  env: Record<string, string> = {},
  target: string = file,
): Record<string, unknown> {
  const where = dir === "no cache" ? "undefined" : JSON.stringify(dir);
  const script = `import(${JSON.stringify(LOADER)}).then((m) => console.log(JSON.stringify(m.requireWithCodeCache(${JSON.stringify(target)}, ${where}))))`;
  const result = spawnSync(process.execPath, ["-e", script], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

const loadWith = (env: Record<string, string>) => load(cacheDir, env);

const entries = async () => (await readdir(cacheDir).catch(() => [])).filter((n) => !n.endsWith(".tmp"));

describe("requireWithCodeCache", () => {
  it("runs a file the same without and with its cache entry, and writes the entry once", async () => {
    const expected = { word: "first", sum: 3 * 7 + 1 + 199 + 1, dir: root, required: "function" };
    expect(load()).toEqual(expected);
    const [entry] = await entries();
    expect(entry).toMatch(/^program\.cjs-\d+-\d+-v\d+\.\d+\.\d+-\w+\.v8$/);
    const written = await stat(join(cacheDir, entry as string));
    expect(written.size).toBeGreaterThan(1000);
    // A second run reads the entry and, V8 having accepted it, leaves it as it was.
    await new Promise((r) => setTimeout(r, 20));
    expect(load()).toEqual(expected);
    expect((await stat(join(cacheDir, entry as string))).mtimeMs).toBe(written.mtimeMs);
    expect(await entries()).toEqual([entry]);
  });

  it("makes the entry before a V8 flag changes, when the code changing it says so, so the next run can use it", async () => {
    const helpers = Array.from({ length: 200 }, (_, i) => `function helper${i}(x) { return x * ${i} + 1; }`);
    await writeFile(
      file,
      `${helpers.join("\n")}\nhelper3(1);\nif (process.env.HOOK) globalThis[Symbol.for("attractor.beforeV8FlagsChange")]?.();\nrequire("node:v8").setFlagsFromString("--liftoff-only");\nmodule.exports = { word: "flags" };\n`,
    );
    const stamp = async () => (await stat(join(cacheDir, (await entries())[0] as string))).mtimeMs;
    // Made after the change (no hook), the entry is rejected by the next run, which rewrites it.
    load();
    const unhooked = await stamp();
    await new Promise((r) => setTimeout(r, 20));
    load();
    expect(await stamp()).not.toBe(unhooked);
    // Made before it, the entry is used as it is.
    await rm(cacheDir, { recursive: true });
    loadWith({ HOOK: "1" });
    const hooked = await stamp();
    await new Promise((r) => setTimeout(r, 20));
    loadWith({ HOOK: "1" });
    expect(await stamp()).toBe(hooked);
  });

  it("loads the relative CommonJS files built for it through the cache, once each, and leaves the others to Node", async () => {
    const helpers = Array.from({ length: 200 }, (_, i) => `function helper${i}(x) { return x * ${i} + 1; }`);
    // Marked: loaded through the cache. Not ASCII: read as UTF-8 all the same.
    await writeFile(
      join(root, "marked.cjs"),
      `${CACHEABLE_MARK}\n${helpers.join("\n")}\nmodule.exports = { text: "naïve … ✓", n: helper5(1) + module.require("fake-package") };\n`,
    );
    // Its module object is Node's: module.require finds packages as Node's would.
    await mkdir(join(root, "node_modules", "fake-package"), { recursive: true });
    await writeFile(join(root, "node_modules", "fake-package", "index.js"), "module.exports = 100;\n");
    // Not marked: Node loads it, and its import() works; what it requires is the same module.
    await writeFile(
      join(root, "plain.cjs"),
      'module.exports = { os: import("node:os").then((os) => typeof os.cpus), marked: require("./marked.cjs") };\n',
    );
    await writeFile(
      file,
      'const marked = require("./marked.cjs");\nconst plain = require("./plain.cjs");\nmodule.exports = { plain, same: plain.marked === marked && marked === require("./marked.cjs") };\n',
    );
    const script = `import(${JSON.stringify(LOADER)}).then(async (m) => { const e = m.requireWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)}); console.log(JSON.stringify({ os: await e.plain.os, text: e.plain.marked.text, n: e.plain.marked.n, same: e.same })); })`;
    const run = () => {
      const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const expected = { os: "function", text: "naïve … ✓", n: 106, same: true };
    expect(run()).toEqual(expected);
    const written = (await entries()).map((n) => n.split("-")[0]).sort();
    expect(written).toEqual(["marked.cjs", "program.cjs"]);
    expect(run()).toEqual(expected);
  });

  it("makes no entry for a file loaded after a V8 flag changed (the next run would reject it)", async () => {
    const helpers = Array.from({ length: 50 }, (_, i) => `function helper${i}(x) { return x * ${i} + 1; }`);
    await writeFile(
      join(root, "late.cjs"),
      `${CACHEABLE_MARK}\n${helpers.join("\n")}\nmodule.exports = helper2(2);\n`,
    );
    await writeFile(
      file,
      `globalThis[Symbol.for("attractor.beforeV8FlagsChange")]?.();\nrequire("node:v8").setFlagsFromString("--liftoff-only");\nmodule.exports = { late: require("./late.cjs") };\n`,
    );
    for (let run = 0; run < 2; run++) {
      expect(load()).toEqual({ late: 5 });
      expect((await entries()).map((n) => n.split("-")[0])).toEqual(["program.cjs"]);
    }
  });

  it("runs past a corrupt entry, which V8 rejects, and writes a good one in its place", async () => {
    load();
    const [entry] = await entries();
    const path = join(cacheDir, entry as string);
    const good = await readFile(path);
    await writeFile(path, Buffer.alloc(good.length, 7));
    expect(load().word).toBe("first");
    expect((await readFile(path)).equals(Buffer.alloc(good.length, 7))).toBe(false);
    expect(load().word).toBe("first");
  });

  it("keys the entry by the file: a rebuilt file runs as it now is; the newest three builds keep theirs", async () => {
    load();
    const names = await entries();
    for (let build = 2; build <= 4; build++) {
      await writeProgram(`build ${build}${"!".repeat(build)}`);
      const later = new Date(Date.now() + build * 5_000);
      await utimes(file, later, later);
      expect(load().word).toBe(`build ${build}${"!".repeat(build)}`);
      const now = await entries();
      names.push(now.find((n) => !names.includes(n)) as string);
      expect(now.sort()).toEqual(names.slice(-3).sort());
    }
  });

  it("keeps the entries of two installs used in turn, rewriting neither", async () => {
    const other = join(root, "other", "program.cjs");
    await mkdir(dirname(other), { recursive: true });
    await writeFile(other, (await readFile(file, "utf8")).replace('"first"', '"other install"'));
    const loadOther = () => load(cacheDir, {}, other);
    load();
    expect(loadOther().word).toBe("other install");
    const stamps = async () =>
      Promise.all((await entries()).sort().map(async (n) => (await stat(join(cacheDir, n))).mtimeMs));
    const before = await stamps();
    expect(before).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 20));
    expect(load().word).toBe("first");
    expect(loadOther().word).toBe("other install");
    expect(await stamps()).toEqual(before);
  });

  /** Ships the entry a first run made as the package does: beside the file, with a manifest. */
  async function ship(manifest: (tag: number, length: number) => unknown, data?: Buffer): Promise<void> {
    load();
    const [entry] = await entries();
    const made = await readFile(join(cacheDir, entry as string));
    await rm(cacheDir, { recursive: true, force: true });
    const folder = join(root, SHIPPED_CACHE_FOLDER);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "program.cjs.v8"), data ?? made);
    const length = (await readFile(file, "utf8")).length;
    await writeFile(join(folder, "manifest.json"), JSON.stringify(manifest(cachedDataVersionTag(), length)));
  }

  it("starts a first run from the entry shipped beside the file, made by this V8, and writes none of its own", async () => {
    await ship((versionTag, length) => ({ versionTag, files: { "program.cjs": length } }));
    expect(load().word).toBe("first");
    // V8 accepted the shipped entry: nothing was compiled that the user's cache would need.
    expect(await entries()).toEqual([]);
  });

  it("passes over a shipped entry of another V8 or another build, or one V8 rejects, and caches its own", async () => {
    const cases: [string, (tag: number, length: number) => unknown, Buffer?][] = [
      ["another V8", (tag, length) => ({ versionTag: tag + 1, files: { "program.cjs": length } })],
      ["another build", (tag, length) => ({ versionTag: tag, files: { "program.cjs": length + 1 } })],
      [
        "corrupt",
        (tag, length) => ({ versionTag: tag, files: { "program.cjs": length } }),
        Buffer.alloc(4000, 7),
      ],
      ["no manifest", () => "not json {"],
    ];
    for (const [why, manifest, data] of cases) {
      await ship(manifest, data);
      expect(load().word, why).toBe("first");
      expect(await entries(), why).toHaveLength(1);
      // The user's own entry is used from then on, before the shipped one.
      const [entry] = await entries();
      const written = (await stat(join(cacheDir, entry as string))).mtimeMs;
      await new Promise((r) => setTimeout(r, 20));
      expect(load().word, why).toBe("first");
      expect((await stat(join(cacheDir, entry as string))).mtimeMs, why).toBe(written);
    }
  });

  it("writes the entry again, with what this run compiled, under ATTRACTOR_CODE_CACHE=refresh", async () => {
    load();
    const [entry] = await entries();
    const written = (await stat(join(cacheDir, entry as string))).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    expect(loadWith({ ATTRACTOR_CODE_CACHE: "refresh" }).word).toBe("first");
    expect((await stat(join(cacheDir, entry as string))).mtimeMs).toBeGreaterThan(written);
  });

  it("runs without a cache where none can be written, and without one at all", async () => {
    await writeFile(join(root, "not-a-directory"), "x");
    expect(load(join(root, "not-a-directory", "cache")).word).toBe("first");
    expect(load("no cache").word).toBe("first");
    expect(await entries()).toEqual([]);
  });

  it("is off with ATTRACTOR_CODE_CACHE=off, and under $XDG_CACHE_HOME or ~/.cache otherwise", () => {
    expect(codeCacheDirectory({ ATTRACTOR_CODE_CACHE: "off", HOME: "/home/u" })).toBeUndefined();
    expect(codeCacheDirectory({ HOME: "/home/u" })).toBe("/home/u/.cache/attractor/code-cache");
    expect(codeCacheDirectory({ HOME: "/home/u", XDG_CACHE_HOME: "/c" })).toBe("/c/attractor/code-cache");
  });
});
