import type { ToolCallData } from "@attractor/llm";
import type { SessionConfig, ToolCallInfo, ToolCallResult } from "../types/config.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { EventDataMap } from "../types/events.js";
import type { ProfileToolRegistry } from "../types/profile.js";
import type { ToolOutput } from "../types/tool.js";
import type { ToolResultRecord } from "../types/turn.js";

/** What one tool round needs from its session. */
export interface ToolRoundContext {
  readonly registry: ProfileToolRegistry;
  /** Tools the model may call this round (the session's filter applied). */
  readonly allowed: (name: string) => boolean;
  readonly environment: ExecutionEnvironment;
  readonly config: SessionConfig;
  readonly defaultCommandTimeoutMs: number;
  readonly parallel: boolean;
  readonly signal: AbortSignal;
  readonly onStart: (data: EventDataMap["tool_call_start"]) => void;
  readonly onOutputDelta: (data: EventDataMap["tool_call_output_delta"]) => void;
  readonly onEnd: (data: EventDataMap["tool_call_end"]) => void;
}

/** Runs one round of tool calls; results come back in call order and never throw. */
export async function runToolRound(
  calls: readonly ToolCallData[],
  ctx: ToolRoundContext,
): Promise<ToolResultRecord[]> {
  if (ctx.parallel && calls.length > 1) return Promise.all(calls.map((c) => runOne(c, ctx)));
  const results: ToolResultRecord[] = [];
  for (const call of calls) results.push(await runOne(call, ctx));
  return results;
}

async function runOne(call: ToolCallData, ctx: ToolRoundContext): Promise<ToolResultRecord> {
  const started = performance.now();
  ctx.onStart({ toolName: call.name, callId: call.id, arguments: call.arguments });
  const finish = (result: ToolCallResult): ToolResultRecord => {
    ctx.onEnd({
      toolName: call.name,
      callId: call.id,
      output: result.output,
      isError: result.isError,
      truncated: false,
      ...(result.details !== undefined && { details: result.details }),
      durationMs: Math.round(performance.now() - started),
    });
    return { toolCallId: call.id, toolName: call.name, content: result.output, isError: result.isError };
  };
  const tool = ctx.allowed(call.name) ? ctx.registry.get(call.name) : undefined;
  if (!tool) return finish({ output: `Unknown tool: ${call.name}`, isError: true });
  let info: ToolCallInfo = { callId: call.id, toolName: call.name, arguments: call.arguments };
  try {
    const decision = await ctx.config.beforeToolCall?.(info);
    if (decision?.action === "deny") return finish({ output: decision.message, isError: true });
    if (decision?.action === "rewrite") info = { ...info, arguments: decision.arguments };
    const raw = await tool.executor(info.arguments, ctx.environment, {
      toolCallId: call.id,
      signal: ctx.signal,
      onOutput: (delta) => ctx.onOutputDelta({ toolName: call.name, callId: call.id, delta }),
      defaultCommandTimeoutMs: ctx.defaultCommandTimeoutMs,
      maxCommandTimeoutMs: ctx.config.maxCommandTimeoutMs,
    });
    const out: ToolOutput = typeof raw === "string" ? { output: raw } : raw;
    let result: ToolCallResult = {
      output: out.output,
      isError: out.isError ?? false,
      ...(out.details !== undefined && { details: out.details }),
    };
    result = (await ctx.config.afterToolCall?.(info, result)) ?? result;
    return finish(result);
  } catch (err) {
    return finish({
      output: `Tool error (${call.name}): ${err instanceof Error ? err.message : String(err)}`,
      isError: true,
    });
  }
}
