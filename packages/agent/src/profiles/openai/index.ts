import type { ProviderProfile } from "../../types/profile.js";
import { buildProviderProfile } from "../shared.js";
import type { ProfileOptions } from "../toolset.js";
import { OPENAI_BASE_PROMPT } from "./prompt.js";

/**
 * codex-aligned: read_file, apply_patch, write_file, shell (10 s), grep, glob, subagent tools;
 * parallel tool calls. Context window and reasoning support come from the llm catalog.
 */
export function createOpenAIProfile(model: string, options: ProfileOptions = {}): ProviderProfile {
  return buildProviderProfile(
    {
      id: "openai",
      basePrompt: OPENAI_BASE_PROMPT,
      projectDocFiles: [".codex/instructions.md"],
      tools: (t) => [
        t.readFile(),
        t.applyPatch(),
        t.writeFile(),
        t.shell({ defaultTimeoutMs: 10_000 }),
        t.grep(),
        t.glob(),
      ],
      defaultCommandTimeoutMs: 10_000,
      serverTools: ["web_search"],
      supportsParallelToolCalls: true,
      fallback: { contextWindowSize: 400_000, supportsReasoning: true },
    },
    model,
    options,
  );
}
