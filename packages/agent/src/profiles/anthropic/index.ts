import type { ProviderProfile } from "../../types/profile.js";
import { createProviderProfile } from "../create-profile.js";
import { createProfileRegistry, withSubagentTools } from "../shared.js";
import type { ProfileOptions } from "../toolset.js";
import { ANTHROPIC_BASE_PROMPT } from "./prompt.js";

/** Claude Code-aligned: read_file, write_file, edit_file, shell (120 s), grep with output modes, glob, subagents. */
export function createAnthropicProfile(model: string, options: ProfileOptions): ProviderProfile {
  const t = options.tools;
  const registry = createProfileRegistry(
    withSubagentTools(
      [
        t.readFile(),
        t.writeFile(),
        t.editFile(),
        t.shell({ defaultTimeoutMs: 120_000 }),
        t.grep({ outputModes: true }),
        t.glob(),
      ],
      options.withoutSubagents,
    ),
  );
  return createProviderProfile({
    id: "anthropic",
    provider: options.provider ?? "anthropic",
    model,
    basePrompt: ANTHROPIC_BASE_PROMPT,
    toolRegistry: registry,
    projectDocFiles: ["CLAUDE.md"],
    supportsReasoning: true,
    supportsParallelToolCalls: true,
    contextWindowSize: options.contextWindowSize ?? 200_000,
    // Claude Code's default; a call's own timeout_ms still wins, and maxCommandTimeoutMs caps both.
    defaultCommandTimeoutMs: 120_000,
    ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
  });
}
