import type { ToolDefinition } from "@attractor/llm";
import { ToolRegistry } from "../tools/registry.js";
import type { ProfileToolRegistry, ProviderProfile } from "../types/profile.js";
import type { AnyTool, RegisteredTool } from "../types/tool.js";

/**
 * A registry of the session's own tools over a profile's, read live: a name in both is the
 * session's, in the profile's place; the profile's registry itself is never changed, so one
 * profile can serve several sessions with different tools.
 */
class LayeredRegistry implements ProfileToolRegistry {
  private readonly own: ToolRegistry;
  // Profile tools unregistered through this layer: hidden here, left in the shared profile.
  private readonly hidden = new Set<string>();

  constructor(
    private readonly base: ProfileToolRegistry,
    tools: readonly AnyTool[],
  ) {
    this.own = new ToolRegistry(tools);
  }

  register(tool: AnyTool): void {
    this.own.register(tool);
    for (const name of this.own.names()) this.hidden.delete(name);
  }

  unregister(name: string): boolean {
    const own = this.own.unregister(name);
    const inBase = this.base.get(name) !== undefined && !this.hidden.has(name);
    if (inBase) this.hidden.add(name);
    return own || inBase;
  }

  get(name: string): RegisteredTool | undefined {
    return this.own.get(name) ?? (this.hidden.has(name) ? undefined : this.base.get(name));
  }

  names(): readonly string[] {
    const baseNames = this.base.names().filter((n) => !this.hidden.has(n));
    return [...baseNames, ...this.own.names().filter((n) => !baseNames.includes(n))];
  }

  definitions(): readonly ToolDefinition[] {
    return this.names().flatMap((n) => {
      const tool = this.get(n);
      return tool ? [tool.definition] : [];
    });
  }
}

/**
 * The profile with more tools: same model, prompt and capabilities, its registry layered under
 * `tools` (checked now: a bad tool throws ToolDefinitionError). withModel keeps the layer.
 */
export function withTools(profile: ProviderProfile, tools: readonly AnyTool[]): ProviderProfile {
  return layered(profile, new LayeredRegistry(profile.toolRegistry, tools));
}

function layered(profile: ProviderProfile, registry: LayeredRegistry): ProviderProfile {
  return {
    ...profile,
    toolRegistry: registry,
    tools: () => registry.definitions(),
    buildSystemPrompt: (context) => profile.buildSystemPrompt(context),
    providerOptions: () => profile.providerOptions(),
    withModel: (model) => layered(profile.withModel(model), registry),
  };
}
