// Ink 6.8's incremental renderer (which rewrites only the lines that changed) moves the cursor up
// one line too few when the previous frame ended in a newline, as every frame shorter than the
// terminal does: each redraw then lands one line low and leaves the old frame's top behind. Ink 7
// fixes it but needs Node 22; until the project can move, the bundle carries the same one-token
// fix. The build fails loudly if Ink's text changes, so an upgrade cannot silently drop or
// misapply it.
import { readFile } from "node:fs/promises";

const BUGGY = "ansiEscapes.cursorUp(previousVisible - 1)";
const FIXED = "ansiEscapes.cursorUp(previousLines.length - 1)";

/** An esbuild plugin applying the fix to ink/build/log-update.js as it is bundled. */
export const inkLogUpdateFix = {
  name: "ink-log-update-fix",
  setup(build) {
    build.onLoad({ filter: /[\\/]ink[\\/]build[\\/]log-update\.js$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      if (text.includes(FIXED) && !text.includes(BUGGY)) return { contents: text, loader: "js" };
      const count = text.split(BUGGY).length - 1;
      if (count !== 1)
        throw new Error(`ink-log-update-fix: expected one "${BUGGY}" in ${args.path}, found ${count}`);
      return { contents: text.replace(BUGGY, FIXED), loader: "js" };
    });
  },
};
