import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join, relative } from "node:path";

/** Whether `dir` is `root` or inside it. */
function within(dir: string, root: string): boolean {
  const rel = relative(root, dir);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * `name` as found in the absolute folders of PATH (an executable file), or `name` itself when it
 * contains a slash or is not there. A helper started in a project folder and looked up by name
 * would otherwise follow a relative PATH entry (`.`, `node_modules/.bin`) to the project's own
 * program of that name; folders inside `outside` (the project, when given) are skipped too, for
 * a PATH that names a project folder absolutely.
 */
export function programOnPath(
  name: string,
  path: string | undefined = process.env.PATH,
  outside?: string,
): string {
  if (name.includes("/")) return name;
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    if (outside !== undefined && within(dir, outside)) continue;
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
 * PATH with its relative entries (and those inside `outside`, when given) removed: the PATH for a
 * helper that itself starts programs by name (a shell script of git commands, say).
 */
export function absolutePath(path: string | undefined = process.env.PATH, outside?: string): string {
  return (path ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && !(outside !== undefined && within(dir, outside)))
    .join(delimiter);
}
