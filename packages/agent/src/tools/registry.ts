import type { ToolDefinition } from "@attractor/llm";
import type { ProfileToolRegistry } from "../types/profile.js";
import type { AnyTool, RegisteredTool } from "../types/tool.js";
import { toRegisteredTool } from "./tool-shape.js";

/**
 * Tools by name, in registration order. Registering a name that exists replaces that tool in
 * its place (the order the model sees, and so the provider's prompt cache, stays as it was); a
 * new name goes last. Every tool is checked when registered: a bad object throws
 * ToolDefinitionError and leaves the registry as it was.
 */
export class ToolRegistry implements ProfileToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();

  constructor(tools: Iterable<AnyTool> = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds a tool, or replaces the one of the same name in its place; throws ToolDefinitionError. */
  register(tool: AnyTool): void {
    const registered = toRegisteredTool(tool);
    this.tools.set(registered.definition.name, registered);
  }

  /** Removes a tool; false when there was none. */
  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  /** The tool registered under a name. */
  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Definitions to offer the model, in registration order. */
  definitions(): readonly ToolDefinition[] {
    return [...this.tools.values()].map((t) => t.definition);
  }

  /** Tool names in registration order. */
  names(): readonly string[] {
    return [...this.tools.keys()];
  }

  /** A new registry holding only the tools marked readOnly. */
  readOnly(): ToolRegistry {
    return new ToolRegistry([...this.tools.values()].filter((t) => t.readOnly === true));
  }
}
