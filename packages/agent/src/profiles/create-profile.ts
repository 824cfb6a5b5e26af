import type { ProviderTool, ToolDefinition } from "@attractor/llm";
import { assembleSystemPrompt } from "../prompts/system-prompt.js";
import type {
  ProfileToolRegistry,
  ProviderProfile,
  SystemPromptContext,
  ToolCallMode,
} from "../types/profile.js";

/** The parts a profile is assembled from. */
export interface ProfileSpec {
  readonly id: string;
  /** Adapter name on the Client; defaults to id. */
  readonly provider?: string;
  readonly model: string;
  readonly basePrompt: string;
  readonly toolRegistry: ProfileToolRegistry;
  readonly projectDocFiles: readonly string[];
  readonly supportsReasoning?: boolean;
  readonly supportsStreaming?: boolean;
  readonly supportsParallelToolCalls?: boolean;
  readonly contextWindowSize?: number;
  readonly defaultCommandTimeoutMs?: number;
  readonly displayName?: string;
  readonly knowledgeCutoff?: string;
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** "native" (default) or "prompted" tool calling. */
  readonly toolCallMode?: ToolCallMode;
  /** `<think>` blocks in the answer text are reasoning. */
  readonly thinkTags?: boolean;
  /** Provider tools the provider runs beside function tools (ProviderProfile.serverTools). */
  readonly serverTools?: readonly ProviderTool["kind"][];
  /** Recomputes model-dependent facts (context window, capabilities) for withModel. */
  readonly forModel?: (model: string) => Partial<ProfileSpec>;
}

/** A ProviderProfile from its parts; the system prompt uses the standard five layers. */
export function createProviderProfile(spec: ProfileSpec): ProviderProfile {
  return {
    id: spec.id,
    provider: spec.provider ?? spec.id,
    model: spec.model,
    toolRegistry: spec.toolRegistry,
    projectDocFiles: spec.projectDocFiles,
    supportsReasoning: spec.supportsReasoning ?? false,
    supportsStreaming: spec.supportsStreaming ?? true,
    supportsParallelToolCalls: spec.supportsParallelToolCalls ?? false,
    contextWindowSize: spec.contextWindowSize ?? 128_000,
    toolCallMode: spec.toolCallMode ?? "native",
    ...(spec.thinkTags !== undefined && { thinkTags: spec.thinkTags }),
    ...(spec.serverTools !== undefined && { serverTools: spec.serverTools }),
    ...(spec.defaultCommandTimeoutMs !== undefined && {
      defaultCommandTimeoutMs: spec.defaultCommandTimeoutMs,
    }),
    ...(spec.displayName !== undefined && { displayName: spec.displayName }),
    ...(spec.knowledgeCutoff !== undefined && { knowledgeCutoff: spec.knowledgeCutoff }),
    buildSystemPrompt(context: SystemPromptContext): string {
      return assembleSystemPrompt({
        base: context.basePrompt ?? spec.basePrompt,
        environment: context.environmentBlock,
        ...(context.gitSnapshot !== undefined && { git: context.gitSnapshot }),
        tools: context.tools,
        ...(context.toolCallInstructions !== undefined && {
          toolCallInstructions: context.toolCallInstructions,
        }),
        ...(context.modeInstructions !== undefined && { modeInstructions: context.modeInstructions }),
        ...(context.skills !== undefined && { skills: context.skills }),
        ...(context.toolInstructions !== undefined && { toolInstructions: context.toolInstructions }),
        projectDocs: context.projectDocs,
        ...(context.userInstructions !== undefined && { userInstructions: context.userInstructions }),
      });
    },
    tools(): readonly ToolDefinition[] {
      return spec.toolRegistry.definitions();
    },
    providerOptions() {
      return spec.providerOptions;
    },
    withModel(model: string): ProviderProfile {
      const { displayName: _d, knowledgeCutoff: _k, ...rest } = spec;
      return createProviderProfile({ ...rest, model, ...spec.forModel?.(model) });
    },
  };
}
