import type { ToolCallMode } from "../types/profile.js";
import type { RegisteredTool } from "../types/tool.js";

/**
 * The shared tool implementations a profile wires to its own schemas and defaults. Profiles
 * take them as a parameter so a host can substitute its own implementation of any tool.
 */
export interface ToolFactories {
  readonly readFile: () => RegisteredTool;
  readonly writeFile: () => RegisteredTool;
  readonly editFile: (options?: {
    readonly multipleFlag?: "replace_all" | "allow_multiple";
  }) => RegisteredTool;
  readonly applyPatch: () => RegisteredTool;
  readonly readManyFiles: () => RegisteredTool;
  readonly shell: (options: { readonly defaultTimeoutMs: number }) => RegisteredTool;
  readonly grep: (options?: { readonly outputModes?: boolean }) => RegisteredTool;
  readonly glob: () => RegisteredTool;
  readonly listDir: () => RegisteredTool;
}

/** Options every profile factory accepts. */
export interface ProfileOptions {
  /** Substitutes for built-in tool implementations; the built-ins are used for the rest. */
  readonly tools?: Partial<ToolFactories>;
  /** Adapter name on the Client (default: the profile id). */
  readonly provider?: string;
  /** Overrides the context window the llm catalog gives (or the provider's fallback). */
  readonly contextWindowSize?: number;
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Leaves out spawn_agent, send_input, wait and close_agent. */
  readonly withoutSubagents?: boolean;
  /**
   * "native" (default): tools go through the provider's tool-calling API. "prompted": for models
   * without it, tools are described in the system prompt and called with `<tool_call>` blocks.
   */
  readonly toolCallMode?: ToolCallMode;
}
