import type { ProviderTool } from "@attractor/llm";
import { subagentTools } from "../subagent/tools.js";
import { backgroundProcessTools } from "../tools/processes/tools.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ProfileToolRegistry, ProviderProfile } from "../types/profile.js";
import type { RegisteredTool } from "../types/tool.js";
import { createProviderProfile } from "./create-profile.js";
import { resolveToolFactories } from "./default-tools.js";
import { modelFacts } from "./model-facts.js";
import type { ProfileOptions, ToolFactories } from "./toolset.js";

/** The registry a profile starts with: a ToolRegistry (replacing a name keeps its place). */
export function createProfileRegistry(tools: readonly RegisteredTool[]): ProfileToolRegistry {
  return new ToolRegistry(tools);
}

/**
 * The tools with shell_output, shell_input and shell_kill right after `shell` (they act on the
 * commands shell starts with run_in_background); as given when there is no shell tool.
 */
export function withBackgroundTools(tools: RegisteredTool[]): RegisteredTool[] {
  const at = tools.findIndex((t) => t.definition.name === "shell");
  return at < 0 ? tools : [...tools.slice(0, at + 1), ...backgroundProcessTools(), ...tools.slice(at + 1)];
}

/** The profile's tools plus the subagent tools unless left out. */
export function withSubagentTools(tools: RegisteredTool[], without?: boolean): RegisteredTool[] {
  return without ? tools : [...tools, ...subagentTools()];
}

/** What distinguishes one provider's profile from another's. */
export interface ProviderProfileKind {
  readonly id: string;
  readonly basePrompt: string;
  readonly projectDocFiles: readonly string[];
  /** The provider's native tools, in the order it lists them (subagent tools follow). */
  readonly tools: (factories: ToolFactories) => RegisteredTool[];
  readonly defaultCommandTimeoutMs: number;
  readonly supportsParallelToolCalls: boolean;
  /** Provider tools the provider runs beside function tools (web search). */
  readonly serverTools?: readonly ProviderTool["kind"][];
  /** Used for models the llm catalog does not know. */
  readonly fallback: { readonly contextWindowSize: number; readonly supportsReasoning: boolean };
}

/** A provider profile for a model: tools wired from the factories, facts from the llm catalog. */
export function buildProviderProfile(
  kind: ProviderProfileKind,
  model: string,
  options: ProfileOptions = {},
): ProviderProfile {
  const registry = createProfileRegistry(
    withSubagentTools(
      withBackgroundTools(kind.tools(resolveToolFactories(options.tools))),
      options.withoutSubagents,
    ),
  );
  return createProviderProfile({
    id: kind.id,
    provider: options.provider ?? kind.id,
    model,
    basePrompt: kind.basePrompt,
    toolRegistry: registry,
    projectDocFiles: kind.projectDocFiles,
    supportsStreaming: true,
    supportsParallelToolCalls: kind.supportsParallelToolCalls,
    defaultCommandTimeoutMs: kind.defaultCommandTimeoutMs,
    ...(kind.serverTools !== undefined && { serverTools: kind.serverTools }),
    ...modelFacts(model, kind.fallback, options.contextWindowSize),
    ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
    ...(options.toolCallMode !== undefined && { toolCallMode: options.toolCallMode }),
    forModel: (next) => modelFacts(next, kind.fallback),
  });
}
