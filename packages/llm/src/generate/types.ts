import type { Client } from "../client.js";
import type { RetryPolicy } from "../retry.js";
import type {
  ContentPart,
  FinishReason,
  Message,
  ReasoningEffort,
  Request,
  Response,
  ResponseFormat,
  StreamEvent,
  ToolCallData,
  ToolChoice,
  ToolResultData,
  Usage,
  Warning,
} from "../types/index.js";
import type { Tool } from "./tool.js";

export interface GenerateTimeout {
  /** The whole generation, all steps and tool runs included, ms. */
  readonly totalMs?: number;
  /** Each model call (retries included), ms. */
  readonly perStepMs?: number;
}

export interface GenerateOptions {
  readonly model: string;
  /** A user message; give this or `messages`, not both. */
  readonly prompt?: string | readonly ContentPart[];
  readonly messages?: readonly Message[];
  /** Sent as a leading system message. */
  readonly system?: string;
  readonly tools?: readonly Tool[];
  readonly toolChoice?: ToolChoice;
  /** Rounds of automatic tool execution; 0 disables it. Default 1. */
  readonly maxToolRounds?: number;
  /** Checked after every step; true ends the loop. */
  readonly stopWhen?: (steps: readonly StepResult[]) => boolean;
  readonly responseFormat?: ResponseFormat;
  readonly temperature?: number;
  readonly topP?: number;
  readonly maxTokens?: number;
  readonly stopSequences?: readonly string[];
  readonly reasoningEffort?: ReasoningEffort;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly provider?: string;
  readonly providerOptions?: Request["providerOptions"];
  /** Retries per model call. Default 2. */
  readonly maxRetries?: number;
  /** The rest of the retry policy (backoff, onRetry…); maxRetries above wins. */
  readonly retry?: Omit<RetryPolicy, "maxRetries" | "signal">;
  /** Milliseconds for the whole generation, or total and per-step limits. */
  readonly timeout?: number | GenerateTimeout;
  readonly signal?: AbortSignal;
  /** The default client (from the environment) when absent. */
  readonly client?: Client;
}

export interface StepResult {
  readonly text: string;
  readonly reasoning?: string;
  readonly toolCalls: readonly ToolCallData[];
  /** Results of the calls executed in this step, in call order (empty when none ran). */
  readonly toolResults: readonly ToolResultData[];
  readonly finishReason: FinishReason;
  readonly usage: Usage;
  readonly response: Response;
  readonly warnings: readonly Warning[];
}

export interface GenerateResult<Output = unknown> extends StepResult {
  /** Usage summed over all steps (`usage` is the last step's). */
  readonly totalUsage: Usage;
  readonly steps: readonly StepResult[];
  /** The conversation after the last step: the input, every step's messages and tool results. */
  readonly messages: readonly Message[];
  /** generateObject(): the parsed, validated object. */
  readonly output?: Output;
}

/** An event of a high-level stream: the adapter's events, and a marker between tool steps. */
export type GenerateStreamEvent =
  | StreamEvent
  | { readonly type: "step_finish"; readonly step: StepResult; readonly stepIndex: number };
