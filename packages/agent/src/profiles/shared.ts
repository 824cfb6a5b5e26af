import { subagentTools } from "../subagent/tools.js";
import type { ProfileToolRegistry } from "../types/profile.js";
import type { RegisteredTool } from "../types/tool.js";

/** A registry where a later registration of a name replaces the earlier one, keeping insertion order otherwise. */
export function createProfileRegistry(tools: readonly RegisteredTool[]): ProfileToolRegistry {
  const map = new Map<string, RegisteredTool>();
  const registry: ProfileToolRegistry = {
    register(tool) {
      map.set(tool.definition.name, tool);
    },
    unregister: (name) => map.delete(name),
    get: (name) => map.get(name),
    definitions: () => [...map.values()].map((t) => t.definition),
    names: () => [...map.keys()],
  };
  for (const t of tools) registry.register(t);
  return registry;
}

/** The profile's tools plus the subagent tools unless left out. */
export function withSubagentTools(tools: RegisteredTool[], without?: boolean): RegisteredTool[] {
  return without ? tools : [...tools, ...subagentTools()];
}
