import type { ProviderProfile } from "../../types/profile.js";
import { buildProviderProfile } from "../shared.js";
import type { ProfileOptions } from "../toolset.js";
import { GEMINI_BASE_PROMPT } from "./prompt.js";

/**
 * gemini-cli-aligned: read_file, read_many_files, write_file, edit_file (with gemini-cli's
 * allow_multiple flag), shell (10 s), grep, glob,
 * list_dir, subagent tools. Context window and reasoning support come from the llm catalog.
 */
export function createGeminiProfile(model: string, options: ProfileOptions = {}): ProviderProfile {
  return buildProviderProfile(
    {
      id: "gemini",
      basePrompt: GEMINI_BASE_PROMPT,
      projectDocFiles: ["GEMINI.md"],
      tools: (t) => [
        t.readFile(),
        t.readManyFiles(),
        t.writeFile(),
        t.editFile({ multipleFlag: "allow_multiple" }),
        t.shell({ defaultTimeoutMs: 10_000 }),
        t.grep(),
        t.glob(),
        t.listDir(),
      ],
      defaultCommandTimeoutMs: 10_000,
      supportsParallelToolCalls: true,
      fallback: { contextWindowSize: 1_048_576, supportsReasoning: true },
    },
    model,
    options,
  );
}
