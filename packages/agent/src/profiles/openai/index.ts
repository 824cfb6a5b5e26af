import type { ProviderProfile } from "../../types/profile.js";
import { createProviderProfile } from "../create-profile.js";
import { createProfileRegistry, withSubagentTools } from "../shared.js";
import type { ProfileOptions } from "../toolset.js";
import { OPENAI_BASE_PROMPT } from "./prompt.js";

/** codex-aligned: read_file, apply_patch, write_file, shell (10 s), grep, glob, subagents; parallel calls. */
export function createOpenAIProfile(model: string, options: ProfileOptions): ProviderProfile {
  const t = options.tools;
  const registry = createProfileRegistry(
    withSubagentTools(
      [
        t.readFile(),
        t.applyPatch(),
        t.writeFile(),
        t.shell({ defaultTimeoutMs: 10_000 }),
        t.grep(),
        t.glob(),
      ],
      options.withoutSubagents,
    ),
  );
  return createProviderProfile({
    id: "openai",
    provider: options.provider ?? "openai",
    model,
    basePrompt: OPENAI_BASE_PROMPT,
    toolRegistry: registry,
    projectDocFiles: [".codex/instructions.md"],
    supportsReasoning: true,
    supportsParallelToolCalls: true,
    contextWindowSize: options.contextWindowSize ?? 400_000,
    defaultCommandTimeoutMs: 10_000,
    ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
  });
}
