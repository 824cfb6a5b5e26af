import type { ProviderProfile } from "../../types/profile.js";
import { buildProviderProfile } from "../shared.js";
import type { ProfileOptions } from "../toolset.js";
import { ANTHROPIC_BASE_PROMPT } from "./prompt.js";

/**
 * Claude Code-aligned: read_file, write_file, edit_file, shell (120 s), grep with output modes,
 * glob, subagent tools. Context window and reasoning support come from the llm catalog.
 */
export function createAnthropicProfile(model: string, options: ProfileOptions = {}): ProviderProfile {
  return buildProviderProfile(
    {
      id: "anthropic",
      basePrompt: ANTHROPIC_BASE_PROMPT,
      projectDocFiles: ["CLAUDE.md"],
      tools: (t) => [
        t.readFile(),
        t.writeFile(),
        t.editFile(),
        t.shell({ defaultTimeoutMs: 120_000 }),
        t.grep({ outputModes: true }),
        t.glob(),
      ],
      // Claude Code's default; a call's own timeout_ms still wins, and maxCommandTimeoutMs caps both.
      defaultCommandTimeoutMs: 120_000,
      serverTools: ["web_search"],
      supportsParallelToolCalls: true,
      fallback: { contextWindowSize: 200_000, supportsReasoning: true },
    },
    model,
    options,
  );
}
