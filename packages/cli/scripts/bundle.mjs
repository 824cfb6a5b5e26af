// Bundles the `attractor` command into dist/bundle after the TypeScript build: the entry file holds
// what every run needs (argument parsing), and chunks hold what only some runs load (the agent and
// model client, the terminal UI, each provider's SDK, undici), each still imported on demand. A run
// then reads a handful of files instead of resolving and reading hundreds of modules, which is most
// of a Node program's start-up.
import { copyFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { CACHEABLE_MARK } from "../dist/launch/code-cache.js";
import { inkLiveArea } from "./ink-live-area.mjs";
import { shipCodeCache } from "./ship-code-cache.mjs";

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
    runtime: "dist/embedding/runtime.js",
    headless: "dist/headless/index.js",
    tui: "dist/tui/index.js",
    config: "dist/embedding/config.js",
  },
  outdir: "dist/bundle",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // The libraries' compiled modules, not their own bundles: this bundle splits them its own way
  // ("module" is esbuild's default condition, which naming any condition drops).
  conditions: ["attractor-unbundled", "module"],
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

// The headless command as one CommonJS file, which the entry loads with V8's code cache for runs
// that cannot be interactive (see src/main.ts): Node 20 caches no compiled ES modules. The
// terminal UI, the fleet and the editor protocol (`attractor acp`) are left out (runCli hands
// those runs back to the ES modules above before it needs them).
const withoutInteractiveUi = {
  name: "without-interactive-ui",
  setup(build) {
    build.onResolve({ filter: /\/(tui\/index|fleet\/fleet-command|acp\/command)\.js$/ }, (args) => ({
      path: args.path,
      namespace: "left-out",
    }));
    build.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of the headless command bundle`)});`,
      loader: "js",
    }));
  },
};
// Packages a headless run needs only sometimes (each provider's SDK, SSH, language servers, the
// bash parser's runtime, whose own import() must stay one, pdf.js and the HTML-to-Markdown
// libraries of web_fetch) go into files of their own beside it, required when first used: every
// run reads the whole headless file as source text, and deserialises its whole code cache, so
// what a run does not use would cost each run its share (pdf.js alone was a third of the file,
// and the HTML libraries' non-ASCII text made the whole source a two-byte string).
const VENDOR = {
  "@anthropic-ai/sdk": "anthropic-sdk",
  "@google/genai": "google-genai",
  openai: "openai",
  "pdfjs-dist/legacy/build/pdf.mjs": "pdfjs",
  "pdfjs-dist/legacy/build/pdf.worker.mjs": "pdfjs-worker",
  linkedom: "linkedom",
  "@mozilla/readability": "readability",
  turndown: "turndown",
  undici: "undici",
  ssh2: "ssh2",
  yaml: "yaml",
  "web-tree-sitter": "web-tree-sitter",
  "vscode-languageserver-protocol": "vscode-languageserver-protocol",
  "vscode-languageserver-protocol/node": "vscode-languageserver-protocol",
};
const VENDOR_ENTRIES = {
  "google-genai": "@google/genai",
  pdfjs: "pdfjs-dist/legacy/build/pdf.mjs",
  "pdfjs-worker": "pdfjs-dist/legacy/build/pdf.worker.mjs",
  linkedom: "linkedom",
  readability: "@mozilla/readability",
  turndown: "turndown",
  undici: "undici",
  ssh2: "ssh2",
  yaml: "yaml",
  // The node entry re-exports the whole protocol, so both specifiers share one file.
  "vscode-languageserver-protocol": "vscode-languageserver-protocol/node",
};
/** Vendor files built with a Headers class of their own (see below). */
const VENDOR_OWN_HEADERS = { "anthropic-sdk": "@anthropic-ai/sdk", openai: "openai" };
/**
 * Vendor files that keep import(), so Node loads them itself (without the code cache): the
 * Emscripten runtime of web-tree-sitter declares a variable named `require`, which import()
 * turned into require() would name.
 */
const VENDOR_WITH_IMPORT = { "web-tree-sitter": "web-tree-sitter" };
const vendored = {
  name: "vendored",
  setup(build) {
    build.onResolve({ filter: /^[@a-z]/ }, (args) => {
      const file = args.kind === "entry-point" ? undefined : VENDOR[args.path];
      return file === undefined ? undefined : { path: `./vendor/${file}.cjs`, external: true };
    });
  },
};
const COMMONJS = {
  absWorkingDir: packageDir,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  conditions: ["attractor-unbundled", "module"],
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  define: {
    "process.env.NODE_ENV": JSON.stringify("production"),
    // import.meta has no meaning in CommonJS: the file's own URL stands in for it.
    "import.meta.url": "__attractorImportMetaUrl",
  },
  sourcemap: "external",
  sourcesContent: false,
  logLevel: "warning",
  external: ["react-devtools-core", "*.node", "cpu-features"],
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
  banner: { js: 'var __attractorImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
};
// Loaded through the code cache too (see the headless file below): import() as require(), and
// the mark that tells the loader so.
const cacheable = {
  supported: { "dynamic-import": false },
  banner: { js: `${CACHEABLE_MARK}\n${COMMONJS.banner.js}` },
};
const vendor = await build({
  ...COMMONJS,
  ...cacheable,
  entryPoints: VENDOR_ENTRIES,
  outdir: "dist/bundle/vendor",
  outExtension: { ".js": ".cjs" },
  metafile: true,
  plugins: [vendored],
});
// The SDKs whose requests the headless command sends over node:http build their headers with a
// Headers class of the model client's own (request-headers.ts) and test bodies against FormData and
// ReadableStream classes that do not load the global ones (platform-class-stand-ins.ts): the first
// touch of the global Headers or FormData compiles all of Node's fetch implementation (about 30 ms
// of every run's start), of ReadableStream Node's web streams.
const vendorOwnHeaders = await build({
  ...COMMONJS,
  ...cacheable,
  entryPoints: VENDOR_OWN_HEADERS,
  outdir: "dist/bundle/vendor",
  outExtension: { ".js": ".cjs" },
  metafile: true,
  plugins: [vendored],
  inject: [fileURLToPath(new URL("./sdk-globals.mjs", import.meta.url))],
  // Read as a property of globalThis too, which inject does not replace.
  define: { ...COMMONJS.define, "globalThis.ReadableStream": "__sdkReadableStream" },
});
for (const [key, value] of Object.entries(vendorOwnHeaders.metafile.outputs))
  vendor.metafile.outputs[key] = value;
for (const [key, value] of Object.entries(vendorOwnHeaders.metafile.inputs))
  vendor.metafile.inputs[key] = value;
const vendorWithImport = await build({
  ...COMMONJS,
  entryPoints: VENDOR_WITH_IMPORT,
  outdir: "dist/bundle/vendor",
  outExtension: { ".js": ".cjs" },
  metafile: true,
  plugins: [vendored],
});
for (const [key, value] of Object.entries(vendorWithImport.metafile.outputs))
  vendor.metafile.outputs[key] = value;
for (const [key, value] of Object.entries(vendorWithImport.metafile.inputs))
  vendor.metafile.inputs[key] = value;
await writeFile(new URL("../dist/bundle/meta-vendor.json", import.meta.url), JSON.stringify(vendor.metafile));
const headless = await build({
  absWorkingDir: packageDir,
  ...COMMONJS,
  entryPoints: { "command-headless": "dist/launch/command.js" },
  outdir: "dist/bundle",
  outExtension: { ".js": ".cjs" },
  // import() as require(): the loader runs this file and the vendor files as scripts, and V8's
  // code cache keeps no module loader for import() in a script.
  ...cacheable,
  // Its SDKs bring their own Headers class (see vendorOwnHeaders): the model client's preload
  // need not load Node's.
  define: { ...COMMONJS.define, "process.env.ATTRACTOR_SDK_OWN_HEADERS": JSON.stringify("1") },
  metafile: true,
  plugins: [withoutInteractiveUi, vendored],
});
await writeFile(
  new URL("../dist/bundle/meta-headless.json", import.meta.url),
  JSON.stringify(headless.metafile),
);

// The bash parser (tree-sitter compiled to WebAssembly) is read from files at run time, on the
// first shell permission check. They go beside the bundle, so it needs no node_modules.
const require = createRequire(import.meta.url);
for (const wasm of ["web-tree-sitter/web-tree-sitter.wasm", "tree-sitter-bash/tree-sitter-bash.wasm"]) {
  const from = require.resolve(wasm);
  const name = wasm.slice(wasm.indexOf("/") + 1);
  await copyFile(from, new URL(`../dist/bundle/${name}`, import.meta.url));
}

// Compiled code of the headless command for first runs (see ship-code-cache.mjs); optional.
const notShipped = await shipCodeCache(fileURLToPath(new URL("../dist/bundle", import.meta.url)));
if (notShipped !== undefined)
  console.warn(`bundle: no code cache shipped (${notShipped}); runs cache their own`);
