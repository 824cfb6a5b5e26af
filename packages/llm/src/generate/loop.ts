import { getDefaultClient } from "../default-client.js";
import { ConfigurationError, StreamError } from "../errors.js";
import { retry, streamWithRetry } from "../retry.js";
import {
  addUsage,
  EMPTY_USAGE,
  type Message,
  type Request,
  type Response,
  responseReasoning,
  responseText,
  responseToolCalls,
  type StreamEvent,
  systemMessage,
  type ToolResultData,
  toolResultMessage,
  userMessage,
} from "../types/index.js";
import { executeToolCalls } from "./execute-tools.js";
import { abortError, openScope, raceSignal, type Scope } from "./signals.js";
import { toToolDefinition, validateToolDefinition } from "./tool.js";
import type { GenerateOptions, GenerateResult, GenerateStreamEvent, StepResult } from "./types.js";

/** Runs one model call for a request; yields its events (if streaming) and returns the Response. */
export type StepRunner = (
  request: Request,
  scope: Scope,
  options: GenerateOptions,
) => AsyncGenerator<StreamEvent, Response>;

/** The conversation a generation starts from; rejects prompt + messages, or neither. */
export function initialMessages(options: GenerateOptions): Message[] {
  if (options.prompt !== undefined && options.messages !== undefined) {
    throw new ConfigurationError("give either prompt or messages, not both");
  }
  if (options.prompt === undefined && options.messages === undefined) {
    throw new ConfigurationError("give a prompt or messages");
  }
  const messages: Message[] = options.system !== undefined ? [systemMessage(options.system)] : [];
  if (options.prompt !== undefined) messages.push(userMessage(options.prompt));
  else messages.push(...(options.messages ?? []));
  return messages;
}

function buildRequest(options: GenerateOptions, messages: readonly Message[], signal: AbortSignal): Request {
  const tools = options.tools?.map(toToolDefinition);
  return {
    model: options.model,
    // A snapshot: the loop appends to its own list after the request has gone.
    messages: [...messages],
    signal,
    ...(options.provider !== undefined && { provider: options.provider }),
    ...(tools !== undefined && tools.length > 0 && { tools }),
    ...(options.toolChoice !== undefined && { toolChoice: options.toolChoice }),
    ...(options.responseFormat !== undefined && { responseFormat: options.responseFormat }),
    ...(options.temperature !== undefined && { temperature: options.temperature }),
    ...(options.topP !== undefined && { topP: options.topP }),
    ...(options.maxTokens !== undefined && { maxTokens: options.maxTokens }),
    ...(options.stopSequences !== undefined && { stopSequences: options.stopSequences }),
    ...(options.reasoningEffort !== undefined && { reasoningEffort: options.reasoningEffort }),
    ...(options.metadata !== undefined && { metadata: options.metadata }),
    ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
  };
}

const retryPolicy = (options: GenerateOptions, signal: AbortSignal) => ({
  ...options.retry,
  maxRetries: options.maxRetries ?? 2,
  signal,
});

/** A step that waits for the whole response (generate). */
export const completeStep: StepRunner = async function* (request, scope, options) {
  const client = options.client ?? getDefaultClient();
  return await raceSignal(
    retry(() => client.complete(request), retryPolicy(options, scope.signal)),
    scope.signal,
  );
};

/** A step that streams the response (stream), retrying only the connection. */
export const streamStep: StepRunner = async function* (request, scope, options) {
  const client = options.client ?? getDefaultClient();
  const it = streamWithRetry(client, request, retryPolicy(options, scope.signal));
  let response: Response | undefined;
  try {
    while (true) {
      const next = await raceSignal(it.next(), scope.signal);
      if (next.done) break;
      if (next.value.type === "finish") response = next.value.response;
      yield next.value;
    }
  } finally {
    await it.return(undefined).catch(() => undefined);
  }
  if (response === undefined) throw new StreamError("the provider's stream ended without a finish event");
  return response;
};

function stepResult(response: Response, toolResults: readonly ToolResultData[]): StepResult {
  const reasoning = responseReasoning(response);
  return {
    text: responseText(response),
    ...(reasoning !== undefined && { reasoning }),
    toolCalls: responseToolCalls(response),
    toolResults,
    finishReason: response.finishReason,
    usage: response.usage,
    response,
    warnings: response.warnings,
  };
}

const timeouts = (options: GenerateOptions) =>
  typeof options.timeout === "number" ? { totalMs: options.timeout } : (options.timeout ?? {});

/**
 * The tool loop shared by generate() and stream(): call the model; when it asks for tools that
 * are all active (or unknown) and rounds remain, run them concurrently, send every result in one
 * continuation and go again. Stops on no calls, a passive tool, the round budget or stopWhen.
 */
export async function* toolLoop(
  options: GenerateOptions,
  runStep: StepRunner,
): AsyncGenerator<GenerateStreamEvent, GenerateResult> {
  const messages = initialMessages(options);
  for (const t of options.tools ?? []) validateToolDefinition(t);
  const tools = options.tools ?? [];
  const maxRounds = options.maxToolRounds ?? 1;
  const { totalMs, perStepMs } = timeouts(options);
  const total = openScope(options.signal, totalMs, "the generation");
  const steps: StepResult[] = [];
  let totalUsage = EMPTY_USAGE;
  try {
    for (let round = 0; ; round++) {
      const scope = openScope(total.signal, perStepMs, `step ${round + 1}`);
      let response: Response;
      try {
        response = yield* runStep(buildRequest(options, messages, scope.signal), scope, options);
      } catch (err) {
        throw scope.signal.aborted ? abortError(scope.signal) : err;
      } finally {
        scope.dispose();
      }
      const calls = responseToolCalls(response);
      // Some compatible servers report "stop" alongside tool calls; the calls are what count.
      const asksForTools =
        calls.length > 0 &&
        (response.finishReason.reason === "tool_calls" || response.finishReason.reason === "stop");
      const passive = calls.some((c) => tools.some((t) => t.name === c.name && t.execute === undefined));
      // Without tools of its own the caller gets the calls back rather than "Unknown tool" replies.
      const execute = asksForTools && tools.length > 0 && !passive && round < maxRounds;
      const history = [...messages, response.message];
      const toolResults = execute
        ? await raceSignal(
            executeToolCalls(calls, tools, { messages: history, signal: total.signal }),
            total.signal,
          )
        : [];
      const step = stepResult(response, toolResults);
      steps.push(step);
      totalUsage = addUsage(totalUsage, response.usage);
      messages.push(response.message);
      if (!execute || options.stopWhen?.(steps)) {
        if (execute) messages.push(...toolResults.map(resultMessage));
        return { ...step, totalUsage, steps, messages };
      }
      messages.push(...toolResults.map(resultMessage));
      yield { type: "step_finish", step, stepIndex: round };
    }
  } finally {
    total.dispose();
  }
}

const resultMessage = (r: ToolResultData): Message =>
  toolResultMessage(r.toolCallId, r.content, r.isError, r.name !== undefined ? { name: r.name } : {});
