import { join } from "node:path";

/**
 * Where a kind of definition (commands, agents, skills) is read from, lowest precedence first:
 * the user's `<home>/<kind>`, then the project's `.claude/<kind>`, then its `.attractor/<kind>`
 * (a later folder's definition replaces an earlier one of the same name).
 */
export function definitionFolders(
  kind: "commands" | "agents" | "skills",
  home: string,
  projectDir: string,
): string[] {
  return [join(home, kind), join(projectDir, ".claude", kind), join(projectDir, ".attractor", kind)];
}
