import type { SubagentType } from "../types/customization.js";
import { listField, stringField } from "./frontmatter.js";
import { type DefinitionProblem, type FolderScan, readMarkdownFolder } from "./markdown-folder.js";

export type { SubagentType };

/**
 * Reads subagent types from folders given lowest precedence first (user, then project): a later
 * folder's type replaces an earlier one of the same name. Files without a name or description
 * are reported as problems.
 */
export async function loadSubagentTypes(folders: readonly string[]): Promise<FolderScan<SubagentType>> {
  const byName = new Map<string, SubagentType>();
  const problems: DefinitionProblem[] = [];
  for (const folder of folders) {
    const scan = await readMarkdownFolder(folder);
    problems.push(...scan.problems);
    for (const { file, document } of scan.items) {
      const name = stringField(document.attributes, "name");
      const description = stringField(document.attributes, "description");
      if (!name || !/^[A-Za-z0-9][\w.-]*$/.test(name)) {
        problems.push({
          file,
          problem: "a subagent needs a `name` (letters, digits, -, _, .) in its frontmatter",
        });
        continue;
      }
      if (!description) {
        problems.push({ file, problem: "a subagent needs a `description` in its frontmatter" });
        continue;
      }
      const tools = listField(document.attributes, "tools");
      const model = stringField(document.attributes, "model");
      byName.set(name, {
        name,
        description,
        prompt: document.body.trim(),
        ...(tools !== undefined && { tools }),
        ...(model !== undefined && { model }),
        file,
      });
    }
  }
  return { items: [...byName.values()], problems };
}

/** The paragraph spawn_agent's description gains when subagent types exist. */
export function describeSubagentTypes(types: readonly SubagentType[]): string {
  if (types.length === 0) return "";
  const lines = types.map((t) => `- ${t.name}: ${t.description.replace(/\s+/g, " ")}`);
  return `\n\nSpecialised subagents (pass the name as subagent_type; the subagent then works with its own instructions, tools and model):\n${lines.join("\n")}`;
}
