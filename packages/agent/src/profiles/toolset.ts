import type { RegisteredTool } from "../types/tool.js";

/**
 * The shared tool implementations a profile wires to its own schemas and defaults. Profiles
 * take them as a parameter so a host can substitute its own implementation of any tool.
 */
export interface ToolFactories {
  readonly readFile: () => RegisteredTool;
  readonly writeFile: () => RegisteredTool;
  readonly editFile: () => RegisteredTool;
  readonly applyPatch: () => RegisteredTool;
  readonly readManyFiles: () => RegisteredTool;
  readonly shell: (options: { readonly defaultTimeoutMs: number }) => RegisteredTool;
  readonly grep: (options?: { readonly outputModes?: boolean }) => RegisteredTool;
  readonly glob: () => RegisteredTool;
  readonly listDir: () => RegisteredTool;
}

/** Options every profile factory accepts. */
export interface ProfileOptions {
  /** The tool implementations to wire up. */
  readonly tools: ToolFactories;
  /** Adapter name on the Client (default: the profile id). */
  readonly provider?: string;
  /** Overrides the context window the catalog gives (or the fallback). */
  readonly contextWindowSize?: number;
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Leaves out spawn_agent, send_input, wait and close_agent. */
  readonly withoutSubagents?: boolean;
}
