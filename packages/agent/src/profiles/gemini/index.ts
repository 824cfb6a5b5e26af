import type { ProviderProfile } from "../../types/profile.js";
import { createProviderProfile } from "../create-profile.js";
import { createProfileRegistry, withSubagentTools } from "../shared.js";
import type { ProfileOptions } from "../toolset.js";
import { GEMINI_BASE_PROMPT } from "./prompt.js";

/** gemini-cli-aligned: read_file, read_many_files, write_file, edit_file, shell (10 s), grep, glob, list_dir, subagents. */
export function createGeminiProfile(model: string, options: ProfileOptions): ProviderProfile {
  const t = options.tools;
  const registry = createProfileRegistry(
    withSubagentTools(
      [
        t.readFile(),
        t.readManyFiles(),
        t.writeFile(),
        t.editFile(),
        t.shell({ defaultTimeoutMs: 10_000 }),
        t.grep(),
        t.glob(),
        t.listDir(),
      ],
      options.withoutSubagents,
    ),
  );
  return createProviderProfile({
    id: "gemini",
    provider: options.provider ?? "gemini",
    model,
    basePrompt: GEMINI_BASE_PROMPT,
    toolRegistry: registry,
    projectDocFiles: ["GEMINI.md"],
    supportsReasoning: true,
    supportsParallelToolCalls: true,
    contextWindowSize: options.contextWindowSize ?? 1_048_576,
    defaultCommandTimeoutMs: 10_000,
    ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
  });
}
