// Bundles the `attractor` command into dist/bundle after the TypeScript build: the entry file holds
// what every run needs (argument parsing), and chunks hold what only some runs load (the agent and
// model client, the terminal UI, each provider's SDK, undici), each still imported on demand. A run
// then reads a handful of files instead of resolving and reading hundreds of modules, which is most
// of a Node program's start-up.
import { copyFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { inkLiveArea } from "./ink-live-area.mjs";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
// Chunk names carry content hashes: clear the last build's, or they pile up.
await rm(new URL("../dist/bundle", import.meta.url), { recursive: true, force: true });

const result = await build({
  absWorkingDir: packageDir,
  // The command, and the embedding entry points the package exports (./runtime, ./headless, ./tui,
  // ./config):
  // bundled too, so the published package needs no dependencies at all.
  entryPoints: {
    attractor: "dist/main.js",
    runtime: "dist/runtime/index.js",
    headless: "dist/headless/index.js",
    tui: "dist/tui/index.js",
    config: "dist/config/index.js",
  },
  outdir: "dist/bundle",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Bundled names get suffixes where they collide; libraries may read a function's or class's name.
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  // React (the terminal UI) in its production build: no development checks, and its development
  // builds are left out of the bundle.
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  // Maps beside the files for local debugging, not referenced from them: they point into the
  // compiled files and node_modules (rather than carrying their text), which the published
  // package does not ship, so the package leaves them out and nothing refers to a missing file.
  sourcemap: "external",
  sourcesContent: false,
  metafile: true,
  logLevel: "warning",
  plugins: [inkLiveArea],
  // Ink imports React's devtools only when DEV=true; they are not a dependency. ssh2 tries its
  // optional native accelerators (its crypto binding, cpu-features) in try/catch and falls back
  // to JavaScript, which is what the self-contained bundle uses.
  external: ["react-devtools-core", "*.node", "cpu-features"],
  // jsonc-parser's "main" is a UMD build that requires its parts at run time; its ES module build bundles.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  // CommonJS dependencies call require() for Node's built-in modules and read __dirname (ssh2),
  // which ESM output lacks: each output file gets its own, from its own location.
  banner: {
    js: [
      'import { createRequire as __attractorCreateRequire } from "node:module";',
      'import { fileURLToPath as __attractorFileURLToPath } from "node:url";',
      "const require = __attractorCreateRequire(import.meta.url);",
      'const __dirname = __attractorFileURLToPath(new URL(".", import.meta.url));',
    ].join("\n"),
  },
});
// Which inputs went into which output file: tests read it to check what a run loads.
await writeFile(new URL("../dist/bundle/meta.json", import.meta.url), JSON.stringify(result.metafile));

// The bash parser (tree-sitter compiled to WebAssembly) is read from files at run time, on the
// first shell permission check. They go beside the bundle, so it needs no node_modules, and beside
// the compiled permissions module, so the library entry points need no build-only package.
const require = createRequire(import.meta.url);
for (const wasm of ["web-tree-sitter/web-tree-sitter.wasm", "tree-sitter-bash/tree-sitter-bash.wasm"]) {
  const from = require.resolve(wasm);
  const name = wasm.slice(wasm.indexOf("/") + 1);
  await copyFile(from, new URL(`../dist/bundle/${name}`, import.meta.url));
  await copyFile(from, new URL(`../dist/permissions/${name}`, import.meta.url));
}
