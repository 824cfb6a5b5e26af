import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { programOnPath } from "./program-on-path.js";

let resolved: string | undefined;

// The binary @vscode/ripgrep's per-platform package carries (installed from the npm registry with
// the package, nothing downloaded at install), looked up next to @vscode/ripgrep itself so a
// non-hoisted install is found too.
function bundledRipgrep(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    // Its exports name only the main module; the platform package sits next to it.
    const main = require.resolve("@vscode/ripgrep");
    const arch = process.env.npm_config_arch || process.arch;
    const exe = process.platform === "win32" ? "rg.exe" : "rg";
    return createRequire(join(dirname(main), "package.json")).resolve(
      `@vscode/ripgrep-${process.platform}-${arch}/bin/${exe}`,
    );
  } catch {
    return undefined;
  }
}

/**
 * The ripgrep command searches run: ATTRACTOR_RIPGREP when set (a path, or "rg" for the one on
 * PATH), else the binary shipped with the package, else `rg` from PATH; a name is looked up in
 * PATH's absolute folders only.
 */
export function ripgrepCommand(): string {
  if (resolved === undefined)
    resolved = programOnPath(process.env.ATTRACTOR_RIPGREP || bundledRipgrep() || "rg");
  return resolved;
}
