import { completeStep, streamStep, toolLoop } from "./generate/loop.js";
import { createStreamResult, type StreamResult } from "./generate/stream-result.js";
import type { GenerateOptions, GenerateResult } from "./generate/types.js";

export { executeToolCall, executeToolCalls } from "./generate/execute-tools.js";
export { type GenerateObjectOptions, generateObject } from "./generate/object.js";
export type { StreamResult } from "./generate/stream-result.js";
export { type Tool, type ToolContext, tool, validateToolDefinition } from "./generate/tool.js";
export type {
  GenerateOptions,
  GenerateResult,
  GenerateStreamEvent,
  GenerateTimeout,
  StepResult,
} from "./generate/types.js";

/**
 * Generates a response, running active tools for up to `maxToolRounds` rounds (default 1) with
 * all calls of a step executed concurrently. Each model call is retried under the policy
 * (maxRetries, default 2); abort and timeouts end it with AbortError / RequestTimeoutError.
 */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const it = toolLoop(options, completeStep);
  let next = await it.next();
  while (!next.done) next = await it.next();
  return next.value;
}

/**
 * Like generate(), but streams: returns at once a StreamResult yielding every step's events,
 * with a `step_finish` event between tool steps. Only each step's connection is retried.
 */
export function stream(options: GenerateOptions): StreamResult {
  return createStreamResult(toolLoop(options, streamStep));
}
