import type { ToolCallData } from "@attractor/llm";
import type { SubagentManager } from "../subagent/manager.js";
import { type CompletedToolCall, dispatchToolCalls } from "../tools/dispatch.js";
import type { BackgroundProcessTable } from "../types/background-process.js";
import type { BeforeToolCallDecision, SessionConfig, ToolCallInfo } from "../types/config.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { EventDataMap } from "../types/events.js";
import type { HookEventName } from "../types/hooks.js";
import type { ProfileToolRegistry } from "../types/profile.js";
import type { ToolOutput } from "../types/tool.js";
import type { ToolResultRecord } from "../types/turn.js";

/** The result a call gets when the user interrupted the cycle before it started. */
export const INTERRUPTED_BEFORE_RUN = "Interrupted by the user: this tool call did not run.";
/** Appended to the output of a call the user interrupted while it ran. */
export const INTERRUPTED_WHILE_RUNNING = "[Interrupted by the user before this tool call finished.]";
/** The result of a call that ignored the interruption and was left behind. */
export const INTERRUPTED_ABANDONED =
  "Interrupted by the user: the tool did not stop in time and its result was discarded.";

/** How long a round waits for its tools to stop after the signal aborts (kill grace included). */
export const INTERRUPT_GRACE_MS = 3000;

/** What one tool round needs from its session. */
export interface ToolRoundContext {
  readonly registry: ProfileToolRegistry;
  /** Tools the model may call this round (the session's filter applied). */
  readonly allowed: (name: string) => boolean;
  readonly environment: ExecutionEnvironment;
  readonly config: SessionConfig;
  readonly defaultCommandTimeoutMs: number;
  readonly parallel: boolean;
  /** Aborted by interrupt() or shutdown; running tools are told to stop, later ones do not run. */
  readonly signal: AbortSignal;
  readonly onStart: (data: EventDataMap["tool_call_start"]) => void;
  readonly onOutputDelta: (data: EventDataMap["tool_call_output_delta"]) => void;
  readonly onEnd: (data: EventDataMap["tool_call_end"]) => void;
  /** The running session's children, which the subagent tools act on. */
  readonly subagents?: SubagentManager;
  /** The session's background processes, for the shell tools. */
  readonly processes?: BackgroundProcessTable;
  /** Overrides INTERRUPT_GRACE_MS. */
  readonly interruptGraceMs?: number;
  /** A non-fatal hook failure (postToolUse), for the session to report. */
  readonly onHookError?: (event: HookEventName, error: unknown) => void;
  /** A hook asked to stop the cycle. */
  readonly onHalt?: (reason: string) => void;
}

const record = (o: CompletedToolCall): ToolResultRecord => ({
  toolCallId: o.toolCallId,
  toolName: o.toolName,
  content: o.modelOutput,
  isError: o.isError,
  ...(o.image !== undefined && { image: o.image }),
  ...(o.document !== undefined && { document: o.document }),
});

const interrupted = (call: ToolCallData, content: string): ToolResultRecord => ({
  toolCallId: call.id,
  toolName: call.name,
  content,
  isError: true,
});

/**
 * Runs one round of tool calls through dispatchToolCalls (lookup, validation, hooks, execution,
 * truncation): TOOL_CALL_END carries the full output, the returned records the model's truncated
 * copy, in call order. Never throws. Every call gets a result even when the signal aborts, so the
 * history stays valid for providers that require one result per call: calls that had not started
 * do not run, calls cut short are marked as interrupted, and calls that ignore the signal for
 * longer than the grace period are abandoned with an error result.
 */
export async function runToolRound(
  calls: readonly ToolCallData[],
  ctx: ToolRoundContext,
): Promise<ToolResultRecord[]> {
  if (ctx.signal.aborted) return calls.map((c) => interrupted(c, INTERRUPTED_BEFORE_RUN));
  const names = new Map(calls.map((c) => [c.id, c.name]));
  let abandoned = false;
  const mark = (o: CompletedToolCall): CompletedToolCall => {
    if (!ctx.signal.aborted) return o;
    if (o.output === INTERRUPTED_BEFORE_RUN) return { ...o, errorCode: "interrupted" };
    return {
      ...o,
      output: `${o.output}\n${INTERRUPTED_WHILE_RUNNING}`,
      modelOutput: `${o.modelOutput}\n${INTERRUPTED_WHILE_RUNNING}`,
      isError: true,
      errorCode: "interrupted",
    };
  };
  const finished = new Map<string, CompletedToolCall>();
  const started = new Set<string>();
  const subagents = ctx.subagents;
  const registry = subagents
    ? {
        get: (name: string) => {
          const tool = ctx.registry.get(name);
          return tool && subagents.bindTool(tool);
        },
      }
    : ctx.registry;
  const round = dispatchToolCalls(calls, registry, ctx.environment, {
    signal: ctx.signal,
    parallel: ctx.parallel,
    truncation: ctx.config,
    defaultCommandTimeoutMs: ctx.defaultCommandTimeoutMs,
    maxCommandTimeoutMs: ctx.config.maxCommandTimeoutMs,
    ...(ctx.processes !== undefined && { processes: ctx.processes }),
    isAllowed: ctx.allowed,
    beforeToolCall: (info) =>
      ctx.signal.aborted ? { action: "deny", message: INTERRUPTED_BEFORE_RUN } : beforeCall(ctx.config, info),
    afterToolCall: (info, result) => afterCall(ctx, info, result),
    onStart: (call) => {
      started.add(call.id);
      ctx.onStart({ toolName: call.name, callId: call.id, arguments: call.arguments });
    },
    onOutputDelta: (callId, delta) => {
      if (!abandoned) ctx.onOutputDelta({ toolName: names.get(callId) ?? "", callId, delta });
    },
    onEnd: (raw) => {
      if (abandoned) return;
      const o = mark(raw);
      finished.set(o.toolCallId, o);
      ctx.onEnd({
        toolName: o.toolName,
        callId: o.toolCallId,
        arguments: o.arguments,
        output: o.output,
        isError: o.isError,
        ...(o.errorCode !== undefined && { errorCode: o.errorCode }),
        truncated: o.truncated,
        ...(o.details !== undefined && { details: o.details }),
        durationMs: o.durationMs,
      });
    },
  });
  const outcomes = await untilStoppedOrGrace(round, ctx.signal, ctx.interruptGraceMs ?? INTERRUPT_GRACE_MS);
  if (outcomes) return outcomes.map((o) => record(finished.get(o.toolCallId) ?? mark(o)));
  abandoned = true;
  return calls.map((c) => {
    const done = finished.get(c.id);
    if (done) return record(done);
    // A call still running gets its end event now; one that never started gets none.
    if (started.has(c.id))
      ctx.onEnd({
        toolName: c.name,
        callId: c.id,
        output: INTERRUPTED_ABANDONED,
        isError: true,
        errorCode: "interrupted",
        truncated: false,
        durationMs: 0,
      });
    return interrupted(c, INTERRUPTED_ABANDONED);
  });
}

/** The round's outcomes, or undefined when the signal aborted and the round outlived the grace. */
function untilStoppedOrGrace<T>(
  round: Promise<T>,
  signal: AbortSignal,
  graceMs: number,
): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      timer = setTimeout(() => resolve(undefined), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    round.then(
      (value) => {
        if (timer) clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        if (timer) clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/** hooks.preToolUse, then the host's beforeToolCall on the (possibly rewritten) call. */
async function beforeCall(
  config: SessionConfig,
  info: ToolCallInfo,
): Promise<BeforeToolCallDecision | undefined> {
  const first = await config.hooks?.preToolUse?.(info);
  if (first?.action === "deny") return first;
  const rewritten = first?.action === "rewrite" ? first.arguments : undefined;
  const call = rewritten ? { ...info, arguments: rewritten } : info;
  const second = await config.beforeToolCall?.(call);
  if (second !== undefined && second.action !== "allow") return second;
  return rewritten ? { action: "rewrite", arguments: rewritten } : second;
}

/** The host's afterToolCall, then hooks.postToolUse; a failing postToolUse leaves the result as it was. */
async function afterCall(
  ctx: ToolRoundContext,
  info: ToolCallInfo,
  result: ToolOutput,
): Promise<ToolOutput | undefined> {
  const { afterToolCall, hooks } = ctx.config;
  let current = (await afterToolCall?.(info, result)) ?? result;
  if (!hooks?.postToolUse) return current;
  try {
    const outcome = await hooks.postToolUse(info, current);
    if (outcome?.result) current = outcome.result;
    if (outcome?.feedback?.trim())
      current = { ...current, output: `${current.output}\n\n${outcome.feedback.trim()}` };
    if (outcome?.halt !== undefined) ctx.onHalt?.(outcome.halt);
  } catch (error) {
    ctx.onHookError?.("PostToolUse", error);
  }
  return current;
}
