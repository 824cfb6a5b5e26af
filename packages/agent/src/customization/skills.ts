import { dirname, join, resolve, sep } from "node:path";
import { Type } from "@sinclair/typebox";
import { defineBuiltinTool } from "../tools/define-tool.js";
import type { Skill } from "../types/customization.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { RegisteredTool } from "../types/tool.js";
import { parseMarkdownDocument, stringField } from "./frontmatter.js";
import { type DefinitionProblem, type FolderScan, readMarkdownFolder } from "./markdown-folder.js";

export type { Skill };

/** The skill file's name inside a skill folder. */
export const SKILL_FILE = "SKILL.md";

/**
 * Finds `<folder>/<skill>/SKILL.md` in each folder, lowest precedence first (a later folder's
 * skill replaces an earlier one of the same name). The name defaults to the folder's name.
 */
export async function loadSkills(folders: readonly string[]): Promise<FolderScan<Skill>> {
  const byName = new Map<string, Skill>();
  const problems: DefinitionProblem[] = [];
  for (const folder of folders) {
    const scan = await readMarkdownFolder(folder, { fileName: SKILL_FILE });
    problems.push(...scan.problems);
    for (const { file, document } of scan.items) {
      const directory = dirname(file);
      const name = stringField(document.attributes, "name") ?? directory.split(sep).at(-1) ?? "";
      const description = stringField(document.attributes, "description");
      if (!description) {
        problems.push({ file, problem: "a skill needs a `description` in its frontmatter" });
        continue;
      }
      byName.set(name, { name, description, directory });
    }
  }
  return { items: [...byName.values()], problems };
}

/** The system prompt's skills section: names and descriptions only ("" without skills). */
export function formatSkillsSection(skills: readonly Skill[]): string {
  if (skills.length === 0) return "";
  const lines = skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, " ")}`);
  return `# Skills\nSkills are instructions for particular tasks. When a task matches a skill's description, load it with the skill tool before starting, then follow it.\n${lines.join("\n")}`;
}

/** How the skill tool reads skill folders; through the session's environment by default. */
export interface SkillFiles {
  /** A file's text by absolute path. */
  readonly readFile?: (path: string) => Promise<string>;
  /** The files under a folder, relative to it. */
  readonly listFiles?: (folder: string) => Promise<readonly string[]>;
}

/** Files of a skill folder besides SKILL.md, relative to it (at most 200). */
async function bundledFiles(
  env: ExecutionEnvironment,
  directory: string,
  files: SkillFiles,
): Promise<string[]> {
  try {
    const paths = files.listFiles
      ? await files.listFiles(directory)
      : (await env.listDirectory(directory, 4)).filter((e) => !e.isDir).map((e) => e.path);
    return paths.filter((p) => p !== SKILL_FILE && !p.startsWith("..")).slice(0, 200);
  } catch {
    return [];
  }
}

/**
 * The `skill` tool: loads a skill's instructions (SKILL.md's body) and lists its bundled files,
 * or reads one bundled file with `file`. `skills` is asked on every call, so the list may change.
 * Skill folders are read through the session's environment unless `files` says otherwise (a
 * host whose tools work on another machine while its skills are local).
 */
export function createSkillTool(skills: () => readonly Skill[], files: SkillFiles = {}): RegisteredTool {
  return defineBuiltinTool({
    name: "skill",
    description:
      "Load a skill's full instructions by name (the skills are listed in the system prompt), or read one of the files bundled with it. Load a skill before doing a task it describes.",
    parameters: Type.Object(
      {
        name: Type.String({ description: "The skill's name." }),
        file: Type.Optional(
          Type.String({
            description:
              "A file bundled with the skill, relative to its folder; omit to load the instructions.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    readOnly: true,
    execute: async (args, { environment: env }) => {
      const read = files.readFile ?? ((path: string) => env.readFile(path));
      const name = args.name;
      const all = skills();
      const skill = all.find((s) => s.name === name);
      if (!skill) {
        const known = all.map((s) => s.name).join(", ");
        return { output: `Unknown skill: ${name}${known ? ` (available: ${known})` : ""}`, isError: true };
      }
      if (args.file !== undefined && args.file.trim() !== "") {
        const target = resolve(skill.directory, args.file);
        if (target !== skill.directory && !target.startsWith(skill.directory + sep)) {
          return { output: `${args.file} is outside the skill's folder`, isError: true };
        }
        try {
          return { output: await read(target) };
        } catch (error) {
          return { output: `Cannot read ${args.file}: ${(error as Error).message}`, isError: true };
        }
      }
      const file = join(skill.directory, SKILL_FILE);
      let body: string;
      try {
        body = (await parseMarkdownDocument(await read(file), file)).body.trim();
      } catch (error) {
        return { output: `Cannot load the skill ${name}: ${(error as Error).message}`, isError: true };
      }
      const bundled = await bundledFiles(env, skill.directory, files);
      const listing =
        bundled.length > 0
          ? `\n\nFiles bundled with this skill (read one with skill {"name": "${name}", "file": "<path>"}):\n${bundled.map((f) => `- ${f}`).join("\n")}`
          : "";
      return { output: `# Skill: ${skill.name}\nFolder: ${skill.directory}\n\n${body}${listing}` };
    },
  });
}
