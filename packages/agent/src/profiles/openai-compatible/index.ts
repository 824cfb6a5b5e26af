import type { ProviderProfile } from "../../types/profile.js";
import { createProviderProfile } from "../create-profile.js";
import { resolveToolFactories } from "../default-tools.js";
import { modelFacts } from "../model-facts.js";
import { createProfileRegistry, withBackgroundTools } from "../shared.js";
import type { ProfileOptions } from "../toolset.js";
import { OPENAI_COMPATIBLE_BASE_PROMPT } from "./prompt.js";

/** The adapter name of OpenAI-compatible Chat Completions servers on the llm Client. */
export const OPENAI_COMPATIBLE_PROVIDER = "openai-compatible";

/** Local models rarely appear in the catalog; this is a common window for them. */
const FALLBACK = { contextWindowSize: 32_768, supportsReasoning: true } as const;

/**
 * For models behind OpenAI-compatible servers (Ollama, vLLM, LM Studio, llama.cpp): a concise
 * prompt and the core tools read_file, write_file, edit_file, shell (60 s, with shell_output,
 * shell_input and shell_kill for its background commands), grep, glob and list_dir, without subagents. Tool calling is native, or prompted (`toolCallMode: "prompted"`)
 * for models and servers without it. `<think>` blocks in the answer text count as reasoning.
 */
export function createOpenAICompatibleProfile(model: string, options: ProfileOptions = {}): ProviderProfile {
  const t = resolveToolFactories(options.tools);
  const registry = createProfileRegistry(
    withBackgroundTools([
      t.readFile(),
      t.writeFile(),
      t.editFile(),
      t.shell({ defaultTimeoutMs: 60_000 }),
      t.grep(),
      t.glob(),
      t.listDir(),
    ]),
  );
  return createProviderProfile({
    id: OPENAI_COMPATIBLE_PROVIDER,
    provider: options.provider ?? OPENAI_COMPATIBLE_PROVIDER,
    model,
    basePrompt: OPENAI_COMPATIBLE_BASE_PROMPT,
    toolRegistry: registry,
    projectDocFiles: [],
    supportsStreaming: true,
    // Small models lose track of several calls at once; one call a round keeps them on course.
    supportsParallelToolCalls: false,
    defaultCommandTimeoutMs: 60_000,
    ...modelFacts(model, FALLBACK, options.contextWindowSize),
    ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
    toolCallMode: options.toolCallMode ?? "native",
    thinkTags: true,
    forModel: (next) => modelFacts(next, FALLBACK, options.contextWindowSize),
  });
}
