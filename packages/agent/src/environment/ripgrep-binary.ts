import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, isAbsolute, join } from "node:path";

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
 * `name` as found in the absolute folders of PATH, or `name` itself when it is not there. rg is
 * started in the folder searched: a relative PATH entry (`.`, `node_modules/.bin`) would make the
 * searched project's own `rg` the one that runs.
 */
function onAbsolutePath(name: string): string {
  if (name.includes("/")) return name;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return name;
}

/**
 * The ripgrep command searches run: ATTRACTOR_RIPGREP when set (a path, or "rg" for the one on
 * PATH), else the binary shipped with the package, else `rg` from PATH; a name is looked up in
 * PATH's absolute folders only.
 */
export function ripgrepCommand(): string {
  if (resolved === undefined)
    resolved = onAbsolutePath(process.env.ATTRACTOR_RIPGREP || bundledRipgrep() || "rg");
  return resolved;
}
