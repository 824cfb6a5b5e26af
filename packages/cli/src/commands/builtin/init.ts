import type { SlashCommand } from "../types.js";

/** What the model is asked to do for /init. */
export const INIT_PROMPT = `Please analyse this codebase and create an AGENTS.md file at the root of the project: instructions for coding agents that will work in this repository.

Look around first (the README, package manifests, build and test configuration, CI files, the main source folders, any existing CLAUDE.md, GEMINI.md, .cursorrules or .github/copilot-instructions.md). Then write AGENTS.md with:
1. The commands to build, lint and test, including how to run a single test.
2. The architecture in brief: the main parts, where they live and how they fit together — what takes reading several files to understand.
3. Conventions a newcomer would get wrong: code style, naming, error handling, where tests go.

Keep it concise and specific to this project; no generic advice and no lists of every file. If AGENTS.md already exists, improve it rather than starting over.`;

/** /init: asks the model to look at the project and write AGENTS.md. */
export const initCommand: SlashCommand = {
  name: "init",
  summary: "Have the model write an AGENTS.md for this project",
  async run({ runtime, host }) {
    host.show({ kind: "text", tone: "info", text: "Looking at the project to write AGENTS.md…" });
    await runtime.submit(INIT_PROMPT);
  },
};
