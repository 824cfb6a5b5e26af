import type { ToolCallData } from "@attractor/llm";
import type { SubagentManager } from "../subagent/manager.js";
import { dispatchToolCalls, type ToolCallOutcome } from "../tools/dispatch.js";
import type { SessionConfig } from "../types/config.js";
import type { ExecutionEnvironment } from "../types/environment.js";
import type { EventDataMap } from "../types/events.js";
import type { ProfileToolRegistry } from "../types/profile.js";
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
  /** Overrides INTERRUPT_GRACE_MS. */
  readonly interruptGraceMs?: number;
}

const record = (o: ToolCallOutcome): ToolResultRecord => ({
  toolCallId: o.toolCallId,
  toolName: o.toolName,
  content: o.modelOutput,
  isError: o.isError,
  ...(o.image !== undefined && { image: o.image }),
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
  const mark = (o: ToolCallOutcome): ToolCallOutcome =>
    ctx.signal.aborted && o.output !== INTERRUPTED_BEFORE_RUN
      ? {
          ...o,
          output: `${o.output}\n${INTERRUPTED_WHILE_RUNNING}`,
          modelOutput: `${o.modelOutput}\n${INTERRUPTED_WHILE_RUNNING}`,
          isError: true,
        }
      : o;
  const finished = new Map<string, ToolCallOutcome>();
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
    isAllowed: ctx.allowed,
    beforeToolCall: (info) =>
      ctx.signal.aborted
        ? { action: "deny", message: INTERRUPTED_BEFORE_RUN }
        : ctx.config.beforeToolCall?.(info),
    ...(ctx.config.afterToolCall !== undefined && { afterToolCall: ctx.config.afterToolCall }),
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
        output: o.output,
        isError: o.isError,
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
