import type {
  ImageData,
  Tool as LlmTool,
  ProviderTool,
  ToolDefinition,
  ToolResultDocument,
} from "@attractor/llm";
import type { BackgroundProcessTable } from "./background-process.js";
import type { ExecutionEnvironment } from "./environment.js";

export type { ToolDefinition };

/**
 * A tool call's result in full, before truncation: what an executor returns (or plain text), what
 * afterToolCall and postToolUse see and may replace. The dispatcher records it, with the model's
 * truncated copy, in a CompletedToolCall.
 */
export interface ToolOutput {
  /** Text for the model (truncated before it is sent) and for the event stream (whole). */
  readonly output: string;
  /** The tool ran but failed in a way the model should see as an error (always set in hooks). */
  readonly isError?: boolean;
  /**
   * Why the call failed, stable for hosts: a thrown ToolError's or EnvironmentError's code, or
   * the loop's own (unknown_tool, invalid_arguments, denied, hook_failed, tool_failed,
   * interrupted, refused by a read-only mode).
   */
  readonly errorCode?: string;
  /** An image for multimodal models (read_file on a picture). */
  readonly image?: ImageData;
  /**
   * A document (read_file on a PDF) with the text that goes with it: sent in place of `output`
   * to providers that take documents in tool results; the others get `output`.
   */
  readonly document?: ToolResultDocument;
  /** Structured details for hosts: a unified diff, an exit code, counts. Never sent to the model. */
  readonly details?: ToolDetails;
}

/** Details hosts use to render a tool call; every field optional. */
export interface ToolDetails {
  readonly diff?: string;
  readonly path?: string;
  readonly paths?: readonly string[];
  readonly exitCode?: number | null;
  readonly durationMs?: number;
  readonly timedOut?: boolean;
  readonly linesRead?: number;
  readonly matchCount?: number;
  readonly fileCount?: number;
  readonly bytesWritten?: number;
  readonly replacements?: number;
  readonly [key: string]: unknown;
}

/**
 * What a tool gets besides its arguments for one call (the agent's counterpart of llm's
 * ToolContext): defineTool's execute gets all of it; a raw ToolExecutor gets the environment as
 * its own argument and the rest here.
 */
export interface ToolCallContext {
  readonly toolCallId: string;
  readonly signal?: AbortSignal;
  /** Streams partial output (TOOL_CALL_OUTPUT_DELTA). */
  readonly onOutput?: (chunk: string) => void;
  /** Shell defaults for this session: the profile's default and the hard maximum. */
  readonly defaultCommandTimeoutMs?: number;
  readonly maxCommandTimeoutMs?: number;
  /** Where the tool reads, writes and runs commands (never node:fs or child_process directly). */
  readonly environment: ExecutionEnvironment;
  /** The session's background processes (shell's run_in_background); absent outside a session. */
  readonly processes?: BackgroundProcessTable;
}

/** @deprecated use ToolCallContext (a ToolExecutor gets it without `environment`). */
export type ToolContext = Omit<ToolCallContext, "environment">;

/** Runs one validated call of a RegisteredTool; returns text or a ToolOutput. */
export type ToolExecutor = (
  args: Readonly<Record<string, unknown>>,
  env: ExecutionEnvironment,
  context: Omit<ToolCallContext, "environment">,
) => Promise<string | ToolOutput>;

export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly executor: ToolExecutor;
  /** True for tools that never change files or run commands (read-only modes offer only these). */
  readonly readOnly?: boolean;
  /**
   * Paths this call would modify, for serialising parallel calls on the same file and for hosts
   * (checkpoints, permissions). Undefined for tools that modify nothing; ["*"] when unknown (shell).
   */
  readonly targets?: (args: Readonly<Record<string, unknown>>) => readonly string[];
  /**
   * Set on a tool the model provider runs (web_search): the session sends it as this provider
   * tool where the profile's provider runs it (ProviderProfile.serverTools) and leaves it out
   * elsewhere; it is never sent as a function.
   */
  readonly providerTool?: ProviderTool;
}

/**
 * Anything a registry or `new Session({ tools })` accepts: a RegisteredTool (what defineTool
 * makes) or a `tool()` from @attractor/llm with an `execute` handler.
 */
export type AnyTool = RegisteredTool | LlmTool<never>;
