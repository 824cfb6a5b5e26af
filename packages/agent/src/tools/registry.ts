import type { ToolDefinition } from "@attractor/llm";
import type { ProfileToolRegistry } from "../types/profile.js";
import type { RegisteredTool } from "../types/tool.js";

/** Tools by name, in registration order; registering an existing name replaces it (latest wins). */
export class ToolRegistry implements ProfileToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();

  constructor(tools: Iterable<RegisteredTool> = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds or replaces a tool under its definition's name. */
  register(tool: RegisteredTool): void {
    // Delete first so a replacement moves to the end, like a fresh registration.
    this.tools.delete(tool.definition.name);
    this.tools.set(tool.definition.name, tool);
  }

  /** Removes a tool; false when there was none. */
  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Definitions to offer the model, in registration order. */
  definitions(): readonly ToolDefinition[] {
    return [...this.tools.values()].map((t) => t.definition);
  }

  names(): readonly string[] {
    return [...this.tools.keys()];
  }

  /** A new registry holding only the tools marked readOnly. */
  readOnly(): ToolRegistry {
    return new ToolRegistry([...this.tools.values()].filter((t) => t.readOnly === true));
  }
}
