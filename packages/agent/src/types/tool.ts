import type { ImageData, Tool as LlmTool, ToolDefinition } from "@attractor/llm";
import type { ExecutionEnvironment } from "./environment.js";

export type { ToolDefinition };

/** What a tool may return besides plain text. */
export interface ToolOutput {
  /** Text for the model (truncated before it is sent) and for the event stream (whole). */
  readonly output: string;
  /** The tool ran but failed in a way the model should see as an error. */
  readonly isError?: boolean;
  /** A stable code for the failure (a thrown ToolError's or EnvironmentError's `code`). */
  readonly errorCode?: string;
  /** An image for multimodal models (read_file on a picture). */
  readonly image?: ImageData;
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

/** Per-call context the dispatcher passes to an executor. */
export interface ToolContext {
  readonly toolCallId: string;
  readonly signal?: AbortSignal;
  /** Streams partial output (TOOL_CALL_OUTPUT_DELTA). */
  readonly onOutput?: (chunk: string) => void;
  /** Shell defaults for this session: the profile's default and the hard maximum. */
  readonly defaultCommandTimeoutMs?: number;
  readonly maxCommandTimeoutMs?: number;
}

export type ToolExecutor = (
  args: Readonly<Record<string, unknown>>,
  env: ExecutionEnvironment,
  context: ToolContext,
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
}

/**
 * Anything a registry or `new Session({ tools })` accepts: a RegisteredTool (what defineTool
 * makes) or a `tool()` from @attractor/llm with an `execute` handler.
 */
export type AnyTool = RegisteredTool | LlmTool<never>;
