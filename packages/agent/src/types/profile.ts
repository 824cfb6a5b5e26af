import type { ProviderTool, ToolDefinition } from "@attractor/llm";
import type { ExecutionEnvironment } from "./environment.js";
import type { AnyTool, RegisteredTool } from "./tool.js";

/**
 * The registry a profile exposes (ToolRegistry implements it): registering a name that exists
 * replaces that tool in its place; a new name goes last.
 */
export interface ProfileToolRegistry {
  /** Adds or replaces a tool; ToolRegistry checks it and throws ToolDefinitionError when bad. */
  register(tool: AnyTool): void;
  unregister(name: string): boolean;
  get(name: string): RegisteredTool | undefined;
  definitions(): readonly ToolDefinition[];
  names(): readonly string[];
}

/**
 * How the model calls tools: "native" sends tool definitions through the provider's API;
 * "prompted" describes them in the system prompt and reads `<tool_call>` blocks from the text,
 * for models and servers without native tool calling.
 */
export type ToolCallMode = "native" | "prompted";

/** What a profile needs to build its system prompt. */
export interface SystemPromptContext {
  readonly environment: ExecutionEnvironment;
  /** The model the session is using now (it may differ from the profile's after setModel). */
  readonly model: string;
  /** The `<environment>` block. */
  readonly environmentBlock: string;
  /** The git snapshot section, when in a repository. */
  readonly gitSnapshot?: string;
  /** Project instructions within budget ("" when none). */
  readonly projectDocs: string;
  /** The tools the model is offered this call. */
  readonly tools: readonly ToolDefinition[];
  readonly userInstructions?: string;
  /** Replaces the profile's base prompt when set (SessionConfig.systemPrompt). */
  readonly basePrompt?: string;
  /**
   * Prompted tool calling: the tool descriptions and the call format. A profile puts it where
   * the tools layer goes, in place of the short tool list.
   */
  readonly toolCallInstructions?: string;
  /** The read-only mode's instructions (explore, plan, review), placed before user instructions. */
  readonly modeInstructions?: string;
  /** The skills section (names and descriptions), placed after project instructions. */
  readonly skills?: string;
  /** Instructions that come with tools (MCP servers'), placed after the skills. */
  readonly toolInstructions?: string;
}

/**
 * A provider-aligned bundle: model, tools with that provider's native schemas, system prompt and
 * capability flags. The session asks it for tools and prompt on every call, so tools registered
 * later take effect on the next call.
 */
export interface ProviderProfile {
  /** "openai" | "anthropic" | "gemini" or a custom id. */
  readonly id: string;
  /** The client's adapter name requests are routed to (often equal to id). */
  readonly provider: string;
  readonly model: string;
  readonly toolRegistry: ProfileToolRegistry;
  /** Builds the full system prompt from its layers. */
  buildSystemPrompt(context: SystemPromptContext): string;
  /** The tool definitions sent to the model. */
  tools(): readonly ToolDefinition[];
  /** Options for Request.providerOptions, keyed by provider. */
  providerOptions(): Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;
  /** Instructions files read for this profile besides AGENTS.md. */
  readonly projectDocFiles: readonly string[];
  readonly supportsReasoning: boolean;
  readonly supportsStreaming: boolean;
  readonly supportsParallelToolCalls: boolean;
  readonly contextWindowSize: number;
  /** Shell default that overrides SessionConfig.defaultCommandTimeoutMs (120 s for Anthropic). */
  readonly defaultCommandTimeoutMs?: number;
  readonly displayName?: string;
  readonly knowledgeCutoff?: string;
  /** How the model calls tools; "native" when absent. */
  readonly toolCallMode?: ToolCallMode;
  /** Whether `<think>…</think>` in the answer text is reasoning (local reasoning models). */
  readonly thinkTags?: boolean;
  /** The provider tools the profile's provider runs beside its function tools (none when absent). */
  readonly serverTools?: readonly ProviderTool["kind"][];
  /** A copy of this profile for another model (subagents, setModel), sharing the registry. */
  withModel(model: string): ProviderProfile;
}
