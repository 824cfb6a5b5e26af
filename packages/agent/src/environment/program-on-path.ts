import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * `name` as found in the absolute folders of PATH (an executable file), or `name` itself when it
 * contains a slash or is not there. A helper started in a project folder and looked up by name
 * would otherwise follow a relative PATH entry (`.`, `node_modules/.bin`) to the project's own
 * program of that name.
 */
export function programOnPath(name: string, path: string | undefined = process.env.PATH): string {
  if (name.includes("/")) return name;
  for (const dir of (path ?? "").split(delimiter)) {
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
