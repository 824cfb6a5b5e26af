import {
  createAnthropicProfile,
  createGeminiProfile,
  createOpenAICompatibleProfile,
  createOpenAIProfile,
  type ProviderProfile,
  type RegisteredTool,
  type ToolCallMode,
} from "@attractor/agent";
import type { ModelChoice } from "./provider-choice.js";

/** How tool calls travel: the provider's native tool API, or `<tool_call>` blocks in plain text. */
export type ToolMode = ToolCallMode;

/**
 * The provider-aligned profile for a choice (Claude Code tools for Anthropic, codex tools for
 * OpenAI, gemini-cli tools for Gemini, a small core for local OpenAI-compatible servers) with
 * the host's extra tools registered on it. Context windows come from the model catalog.
 */
export function createProfile(
  choice: ModelChoice,
  extraTools: readonly RegisteredTool[],
  toolMode: ToolMode = "native",
): ProviderProfile {
  const options = { toolCallMode: toolMode };
  let profile: ProviderProfile;
  switch (choice.provider) {
    case "anthropic":
      profile = createAnthropicProfile(choice.model, options);
      break;
    case "openai":
      profile = createOpenAIProfile(choice.model, options);
      break;
    case "gemini":
      profile = createGeminiProfile(choice.model, options);
      break;
    case "openai-compatible":
      profile = createOpenAICompatibleProfile(choice.model, options);
      break;
  }
  for (const tool of extraTools) profile.toolRegistry.register(tool);
  return profile;
}
