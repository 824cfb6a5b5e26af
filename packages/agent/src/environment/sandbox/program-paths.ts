import { existsSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, sep } from "node:path";

/**
 * The host directories a long-lived program needs to read that the sandbox's private /tmp would
 * hide: for each absolute, existing path among its command and arguments that lies under the
 * host's temporary directory, the `node_modules` folder it sits in (its package's dependencies
 * are found there) or else its directory. Bound read-only, they widen nothing that can be written.
 */
export function programReadPaths(words: readonly string[], temporary = tmpdir()): string[] {
  const roots = new Set([temporary, safeRealpath(temporary), "/tmp"]);
  const found = new Set<string>();
  for (const word of words) {
    if (!isAbsolute(word) || !existsSync(word)) continue;
    const real = safeRealpath(word);
    if (![...roots].some((root) => real.startsWith(root + sep))) continue;
    const marker = `${sep}node_modules${sep}`;
    const at = real.indexOf(marker);
    found.add(at >= 0 ? real.slice(0, at + marker.length - 1) : dirname(real));
  }
  return [...found];
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
