// The bundle draws Ink's live area with the UI's own writer (src/tui/render/live-area.ts): Ink's
// log-update rewrites every line below a change, and erases and redraws the whole area whenever
// transcript output is printed above it, which made a streamed answer cost many times its size on
// the terminal. Two changes, both failing the build loudly if Ink's text moves, so an upgrade can
// neither drop nor misapply them:
//   - ink/build/ink.js imports "./log-update.js": that import resolves to the compiled writer;
//   - ink.js prints <Static> output by clearing the area, writing the output and drawing the area
//     again: that becomes one call to the writer's insertAbove, which moves the area instead;
//   - ink.js treats a frame as tall as the screen as "fullscreen": it drops the final newline and,
//     on the next frame, clears the whole terminal and reprints every <Static> line. Both go: the
//     writer shows the bottom of a frame taller than the screen instead (fitFrame), so the area
//     never scrolls out of reach and nothing is printed twice.
//   - ink/build/wrap-text.js wraps with wrap-ansi keeping the space of each break on a row (a
//     stray space before a wrapped line's text): it wraps with src/tui/render/soft-wrap.ts instead.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const WRITER = fileURLToPath(new URL("../dist/tui/render/live-area.js", import.meta.url));
const STATIC_PRINT = [
  "            this.log.clear();",
  "            this.options.stdout.write(staticOutput);",
  "            this.log(outputToRender);",
].join("\n");
const STATIC_INSERT = "            this.log.insertAbove(staticOutput, outputToRender);";
const FULLSCREEN = [
  [
    "const isFullscreen = this.options.stdout.isTTY && outputHeight >= this.options.stdout.rows;",
    "const isFullscreen = false;",
  ],
  ["if (this.lastOutputHeight >= this.options.stdout.rows) {", "if (false) {"],
];
const INK_FILE = /[\\/]ink[\\/]build[\\/]ink\.js$/;
const SOFT_WRAP = fileURLToPath(new URL("../dist/tui/render/soft-wrap.js", import.meta.url));
const WRAP_FILE = /[\\/]ink[\\/]build[\\/]wrap-text\.js$/;
const WRAP_CALL = [
  "        wrappedText = wrapAnsi(text, maxWidth, {",
  "            trim: false,",
  "            hard: true,",
  "        });",
].join("\n");

/** An esbuild plugin putting the live-area writer in place of Ink's log-update. */
export const inkLiveArea = {
  name: "ink-live-area",
  setup(build) {
    let replaced = 0;
    let softWrapped = 0;
    build.onStart(() => {
      replaced = 0;
      softWrapped = 0;
    });
    build.onResolve({ filter: /^\.\/log-update\.js$/ }, (args) => {
      if (!INK_FILE.test(args.importer)) return undefined;
      replaced++;
      return { path: WRITER };
    });
    build.onLoad({ filter: INK_FILE }, async (args) => {
      const text = await readFile(args.path, "utf8");
      const count = text.split(STATIC_PRINT).length - 1;
      if (count !== 1)
        throw new Error(`ink-live-area: expected Ink's <Static> print once in ${args.path}, found ${count}`);
      let contents = text.replace(STATIC_PRINT, STATIC_INSERT);
      for (const [from, to] of FULLSCREEN) {
        const found = contents.split(from).length - 1;
        if (found !== 1)
          throw new Error(
            `ink-live-area: expected Ink's fullscreen check once in ${args.path}, found ${found}`,
          );
        contents = contents.replace(from, to);
      }
      return { contents, loader: "js" };
    });
    build.onLoad({ filter: WRAP_FILE }, async (args) => {
      const text = await readFile(args.path, "utf8");
      if (text.split(WRAP_CALL).length - 1 !== 1)
        throw new Error(`ink-live-area: expected Ink's wrap-ansi call once in ${args.path}`);
      softWrapped++;
      const contents = `import { softWrap } from ${JSON.stringify(SOFT_WRAP)};\n${text.replace(
        WRAP_CALL,
        "        wrappedText = softWrap(text, maxWidth, wrapAnsi);",
      )}`;
      return { contents, loader: "js" };
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && softWrapped !== 1)
        throw new Error(`ink-live-area: expected Ink's wrap-text.js once, saw ${softWrapped}`);
      if (result.errors.length === 0 && replaced !== 1)
        throw new Error(`ink-live-area: expected Ink to import ./log-update.js once, saw ${replaced}`);
    });
  },
};
