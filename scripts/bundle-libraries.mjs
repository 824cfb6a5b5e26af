// Bundles the library packages' compiled modules (after tsc) into dist/bundle, the files their
// package.json `import` conditions point at: an embedder's `import("@attractor/agent")` then reads
// a handful of files instead of resolving, reading and linking some 500 modules (its own, the
// llm package's and TypeBox's), which is most of a cold import. Entries of one package share
// chunks, so a class is one class across `.`, `/testing` and `/internals`; dynamic imports stay
// chunks of their own, loaded on first use. Dependencies stay imports, except the ones made of
// many small modules that every import loads: TypeBox (200 modules; its schemas are plain JSON
// Schema with global symbols, so a program's own TypeBox builds the same schemas), diff and
// jsonrepair in the agent, ajv (60 CommonJS modules) in llm, jsonc-parser (its ES module build) in the
// runtime. They stay declared dependencies, for their types. The command's bundle reads the
// compiled modules through the `attractor-unbundled` condition instead.
// Usage: node scripts/bundle-libraries.mjs [llm|agent|runtime ...]   (default: all three)
import { copyFile, cp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const PACKAGES = {
  llm: { entries: { index: "dist/index.js", testing: "dist/testing/index.js" }, inline: ["ajv"] },
  agent: {
    entries: { index: "dist/index.js", internals: "dist/internals.js", testing: "dist/testing/index.js" },
    inline: ["@sinclair/typebox", "diff", "jsonrepair"],
  },
  runtime: {
    entries: Object.fromEntries(
      [
        "index",
        "names",
        "config",
        "permissions",
        "hooks",
        "checkpoints",
        "store",
        "customization",
        "mcp",
        "query",
      ].map((e) => [e, e === "index" || e === "names" ? `dist/${e}.js` : `dist/${e}/index.js`]),
    ),
    // jsonc-parser's "main" is a UMD build that requires its parts one by one at run time; its ES
    // module build compiles in.
    inline: ["jsonc-parser"],
    alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  },
};

for (const name of process.argv.length > 2 ? process.argv.slice(2) : Object.keys(PACKAGES)) {
  const spec = PACKAGES[name];
  if (!spec) throw new Error(`no library package named ${name}`);
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  const external = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
    .filter((dep) => !spec.inline.includes(dep))
    .flatMap((dep) => [dep, `${dep}/*`]);
  await rm(join(dir, "dist", "bundle"), { recursive: true, force: true });
  await build({
    absWorkingDir: dir,
    entryPoints: spec.entries,
    outdir: "dist/bundle",
    // Chunks beside the entries: a module that reads a file next to itself (the request
    // specifications of llm's testing entry) finds it from any of them.
    chunkNames: "[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    keepNames: true,
    external,
    alias: spec.alias ?? {},
    // CommonJS compiled in (ajv) may require() Node's modules, which ES module output lacks.
    banner: {
      js: 'import { createRequire as __libraryCreateRequire } from "node:module";\nconst require = __libraryCreateRequire(import.meta.url);',
    },
    // No source maps: they would name the compiled-in dependencies' files, which the package does
    // not ship; the bundles are not minified and keep every name, so a stack trace reads as is.
    logLevel: "warning",
  });
  if (name === "llm")
    await cp(join(dir, "dist", "testing", "specs"), join(dir, "dist", "bundle", "specs"), {
      recursive: true,
    });
  // The bash parser (tree-sitter compiled to WebAssembly) reads these files beside its module: the
  // compiled permissions folder and the bundle. They ship in the package, so an install needs
  // neither the grammar's package (a native build) nor node_modules to look in.
  if (name === "runtime") {
    const require = createRequire(join(dir, "package.json"));
    for (const wasm of ["web-tree-sitter/web-tree-sitter.wasm", "tree-sitter-bash/tree-sitter-bash.wasm"]) {
      const from = require.resolve(wasm);
      const file = wasm.slice(wasm.indexOf("/") + 1);
      await copyFile(from, join(dir, "dist", "bundle", file));
      await copyFile(from, join(dir, "dist", "permissions", file));
    }
  }
}
