import type { SessionEvent } from "@attractor/agent";
import type { RetryWait, RuntimeNotice, TodoItem } from "@attractor/runtime";
import { typedText } from "@attractor/runtime";
import type { OutputBlock, Tone } from "../../commands/types.js";
import type { AdvisedFailure } from "./error-advice.js";
import type { NewItem, ToolCallView, TranscriptItem } from "./items.js";
import { targetOf } from "./tool-summary.js";

/** A subagent at work, shown live under the call that spawned it. */
export interface SubagentView {
  readonly agentId: string;
  /** The parent's spawn_agent call. */
  readonly parentCallId?: string;
  readonly agentType?: string;
  /** What it is doing now ("read_file src/a.ts", "thinking"). */
  readonly activity: string;
  readonly toolCalls: number;
}

/** The assistant message being streamed. */
export interface StreamingMessage {
  /** Text not yet committed (the tail after the last block boundary). */
  readonly text: string;
  readonly reasoning: string;
  /** Whether part of this message was already committed (later parts get no bullet). */
  readonly committedAny: boolean;
}

/** Everything the interactive UI shows, derived from events; finished items never change. */
export interface TranscriptState {
  readonly items: readonly TranscriptItem[];
  readonly nextId: number;
  readonly streaming: StreamingMessage | undefined;
  /** Tool calls started and not yet ended, in start order. */
  readonly running: readonly ToolCallView[];
  readonly busy: boolean;
  /** A long step the runtime is doing besides the model (compaction). */
  readonly activity: string | undefined;
  /** Messages queued while busy (follow-ups) that the session has not taken up yet. */
  readonly queued: readonly string[];
  /** Steering messages sent while busy and not injected yet. */
  readonly steering: readonly string[];
  /** Text to put into the input (a rewound message, messages an interrupt gave back), newest last. */
  readonly inputFills: readonly InputFill[];
  readonly todos: readonly TodoItem[];
  /** Subagents working now, in start order. */
  readonly subagents: readonly SubagentView[];
  /** A failed model request waiting to be tried again (shown with a countdown). */
  readonly retrying: RetryWait | undefined;
  /**
   * Retries reported for the model request under way, whoever reported them (the connection's or
   * a stream broken mid-answer): the countdown counts them as one series.
   */
  readonly retries?: number;
  /**
   * The request under way already kept a broken answer's text (marked as cut): the attempts
   * after it start the same answer again, and their text is not kept once more.
   */
  readonly cutKept?: boolean;
  /** The user's latest message while its turn has not ended well: a failed turn gives it back. */
  readonly unanswered?: string;
  /** The whole output of the latest finished tool calls, oldest first, for the output viewer. */
  readonly outputs: readonly FullOutput[];
  /** Why the compaction running now started (a /compact reports its own outcome). */
  readonly compacting?: string;
  /**
   * Messages sent whose transcript line shows the draft as the input did: a paste of thousands
   * of lines stays its placeholder instead of filling the scrollback (the model gets it whole).
   */
  readonly shownAs?: readonly { readonly text: string; readonly shown: string }[];
}

/** A finished tool call's whole output, kept for viewing it beyond the block's preview. */
export interface FullOutput {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The call's diff (edits, writes, patches) or else its output. */
  readonly output: string;
  readonly isDiff: boolean;
  /** Characters cut off the end to keep memory bounded (0 when whole). */
  readonly cutChars: number;
}

/** Finished calls whose whole output stays viewable, and how much of each is kept. */
const OUTPUTS_KEPT = 10;
const OUTPUT_CHARS_KEPT = 2_000_000;

/** Text for the input box; the box applies each id once. */
export interface InputFill {
  readonly id: number;
  readonly text: string;
}

/** Fills kept for the input box to pick up (it applies them on its next render). */
const FILLS_KEPT = 8;

/** Something that changes the transcript: a session event, a runtime notice or a UI action. */
export type TranscriptAction =
  | { readonly type: "event"; readonly event: SessionEvent | RuntimeNotice | LooseEvent }
  /** Several events in arrival order (streamed pieces held back for a frame, then what followed). */
  | { readonly type: "events"; readonly events: readonly (SessionEvent | RuntimeNotice | LooseEvent)[] }
  | { readonly type: "append"; readonly item: NewItem }
  | { readonly type: "output"; readonly block: OutputBlock }
  | { readonly type: "notice"; readonly tone: Tone; readonly text: string }
  /** The user queued a message; while busy it waits as a follow-up until its user_input event. */
  | {
      readonly type: "submitted";
      readonly text: string;
      readonly whileBusy: boolean;
      /** The draft as the input showed it (a long paste as its placeholder), if not the text. */
      readonly shown?: string;
    }
  /** Submitting failed before the session took it up (closed session). */
  | { readonly type: "failed"; readonly message: string }
  /** Every submitted message's cycle has ended (a backstop when no processing_end arrived). */
  | { readonly type: "settled" }
  | { readonly type: "reset" };

/** Events of kinds this build's types may not list yet (compaction). */
export interface LooseEvent {
  readonly kind: string;
  readonly data?: unknown;
}

/** Running output kept per tool call: enough for a live tail, bounded for long commands. */
const RUNNING_TAIL_CHARS = 4096;
/** Output preview kept for a finished call (lines), so memory stays flat over long sessions. */
const PREVIEW_LINES = 40;
const PREVIEW_CHARS = 8192;
/** Diff text kept for a finished call. */
const DIFF_CHARS = 32_768;

/** The initial state, with the given todos. */
export function initialTranscript(todos: readonly TodoItem[] = []): TranscriptState {
  return {
    items: [],
    nextId: 1,
    streaming: undefined,
    running: [],
    busy: false,
    activity: undefined,
    queued: [],
    steering: [],
    inputFills: [],
    todos,
    subagents: [],
    retrying: undefined,
    outputs: [],
  };
}

/** Applies one action; pure, so tests replay event sequences through it. */
export function reduceTranscript(state: TranscriptState, action: TranscriptAction): TranscriptState {
  switch (action.type) {
    case "append":
      // A restored call's output (what the model saw) can be viewed whole like a live one's.
      return commit(
        action.item.kind === "tool" && action.item.call.result
          ? { ...state, outputs: keepOutput(state.outputs, action.item.call) }
          : state,
        [action.item],
      );
    case "output":
      return commit(state, [{ kind: "output", block: action.block }]);
    case "notice":
      return commit(state, [{ kind: "notice", tone: action.tone, text: action.text }]);
    case "submitted": {
      const shown =
        action.shown === undefined
          ? state
          : { ...state, shownAs: [...(state.shownAs ?? []), { text: action.text, shown: action.shown }] };
      return action.whileBusy
        ? { ...shown, queued: [...state.queued, action.text] }
        : { ...shown, busy: true };
    }
    case "failed":
      return commit({ ...state, busy: false, queued: [], shownAs: [] }, [
        { kind: "notice", tone: "error", text: action.message },
      ]);
    case "settled":
      return state.busy
        ? {
            ...flushLive(state),
            busy: false,
            activity: undefined,
            queued: [],
            steering: [],
            retrying: undefined,
          }
        : state;
    case "reset":
      // A rewind resets the screen right after giving its message back: the fill must survive.
      return { ...initialTranscript(state.todos), nextId: state.nextId, inputFills: state.inputFills };
    case "event":
      return onEvent(state, action.event);
    case "events":
      return action.events.reduce(onEvent, state);
  }
}

function commit(state: TranscriptState, items: readonly NewItem[]): TranscriptState {
  if (items.length === 0) return state;
  let nextId = state.nextId;
  const added = items.map((item) => ({ ...item, id: nextId++ }) as TranscriptItem);
  return { ...state, items: [...state.items, ...added], nextId };
}

function onEvent(state: TranscriptState, event: SessionEvent | RuntimeNotice | LooseEvent): TranscriptState {
  const e = event as SessionEvent;
  switch (e.kind) {
    case "session_start":
    case "session_end":
      return e.kind === "session_end" && e.data.reason === "error"
        ? // The runtime starts the conversation again from its history on the next message: it
          // has not ended for the user, whatever the library's session did.
          commit(state, [
            {
              kind: "notice",
              tone: "info",
              text: "The conversation so far is kept: send a message to go on.",
            },
          ])
        : state;
    case "user_input": {
      const queued = [...state.queued];
      const at = queued.indexOf(e.data.content);
      if (at >= 0) queued.splice(at, 1);
      const text = typedText(e.data.content);
      const shownAs = state.shownAs ?? [];
      const pair = shownAs.findIndex((s) => s.text === text);
      const shown = pair >= 0 ? (shownAs[pair]?.shown ?? text) : text;
      return commit(
        {
          ...state,
          busy: true,
          queued,
          unanswered: text,
          ...(pair >= 0 && { shownAs: shownAs.filter((_, i) => i !== pair) }),
        },
        [{ kind: "user", text: shown }],
      );
    }
    case "assistant_text_start":
      return {
        ...state,
        busy: true,
        retrying: undefined,
        streaming: { text: "", reasoning: "", committedAny: false },
      };
    case "assistant_text_delta": {
      const current = state.streaming ?? { text: "", reasoning: "", committedAny: false };
      if (e.data.channel === "reasoning")
        return { ...state, streaming: { ...current, reasoning: current.reasoning + e.data.delta } };
      const text = current.text + e.data.delta;
      const cut = blockBoundary(text);
      if (cut === 0) return { ...state, streaming: { ...current, text } };
      const done = text.slice(0, cut).trimEnd();
      const next = { ...state, streaming: { ...current, text: text.slice(cut), committedAny: true } };
      return done.length > 0
        ? commit(next, [{ kind: "assistant", text: done, first: !current.committedAny }])
        : next;
    }
    case "assistant_text_end": {
      const current = state.streaming;
      const items: NewItem[] = [];
      const reasoning = current?.reasoning || e.data.reasoning || "";
      if (reasoning.trim()) items.push({ kind: "reasoning", text: reasoning.trim() });
      // Without text deltas (a non-streaming provider) the end event carries the whole text.
      const streamedText = current !== undefined && (current.committedAny || current.text !== "");
      const rest = streamedText ? current.text : e.data.text;
      if (rest.trim()) items.push({ kind: "assistant", text: rest.trim(), first: !current?.committedAny });
      // The request got its answer: the next one counts its retries afresh.
      return commit({ ...state, streaming: undefined, retries: 0, cutKept: false }, items);
    }
    case "tool_call_start":
      return {
        ...state,
        busy: true,
        retrying: undefined,
        running: [
          ...state.running,
          { callId: e.data.callId, toolName: e.data.toolName, arguments: e.data.arguments, output: "" },
        ],
      };
    case "tool_call_output_delta":
      return {
        ...state,
        running: state.running.map((call) =>
          call.callId === e.data.callId ? { ...call, output: tail(call.output + e.data.delta) } : call,
        ),
      };
    case "tool_call_end": {
      const started = state.running.find((c) => c.callId === e.data.callId);
      const details = e.data.details?.diff
        ? { ...e.data.details, diff: e.data.details.diff.slice(0, DIFF_CHARS) }
        : e.data.details;
      const call: ToolCallView = {
        callId: e.data.callId,
        toolName: e.data.toolName,
        arguments: started?.arguments ?? {},
        output: preview(e.data.output),
        result: {
          isError: e.data.isError,
          ...(details !== undefined && { details }),
          durationMs: e.data.durationMs,
          outputLines: countLines(e.data.output),
        },
      };
      const outputs = keepOutput(state.outputs, { ...call, output: e.data.output }, e.data.details?.diff);
      return commit({ ...state, outputs, running: state.running.filter((c) => c !== started) }, [
        { kind: "tool", call },
      ]);
    }
    case "steering_injected":
      return commit(state, [
        {
          kind: "notice",
          tone: e.data.source === "loop_detection" ? "warning" : "info",
          text: `${e.data.source === "hook" ? "From a hook" : "Steering"}: ${e.data.content}`,
        },
      ]);
    case "subagent_event":
      return onSubagentEvent(state, e.data);
    case "turn_limit":
      return commit(state, [
        {
          kind: "notice",
          tone: "warning",
          text: `Stopped at the ${e.data.limit === "max_turns" ? "turn" : "tool round"} limit (${e.data.value}). Send a message to continue.`,
        },
      ]);
    case "loop_detection":
      return commit(state, [{ kind: "notice", tone: "warning", text: `Loop detected: ${e.data.message}` }]);
    case "retry": {
      // One line, the countdown, says a request is tried again (and updates in place); a stream
      // that broke mid-answer keeps what was shown, marked as cut, and the answer starts again.
      const broken =
        e.data.discardPartial && !state.cutKept && state.streaming?.text.trim() ? state.streaming : undefined;
      const kept: NewItem[] = broken
        ? [
            { kind: "assistant", text: broken.text.trim(), first: !broken.committedAny },
            { kind: "notice", tone: "warning", text: `cut off (${e.data.message}); the answer starts again` },
          ]
        : [];
      const retries = (state.retries ?? 0) + 1;
      return commit(
        {
          ...state,
          retries,
          ...(broken !== undefined && { cutKept: true }),
          streaming: e.data.discardPartial ? undefined : state.streaming,
          retrying: {
            attempt: Math.max(retries, e.data.attempt),
            maxRetries: e.data.maxRetries,
            delayMs: e.data.delayMs,
            reason: e.data.message,
            until: (Date.parse(e.timestamp) || 0) + e.data.delayMs,
          },
        },
        kept,
      );
    }
    case "warning":
      // A RuntimeNotice of the same kind carries `message` instead of `data`. A summary that
      // failed is part of the outcome /compact reports in its one line.
      if (!("data" in e)) return onOther(state, event);
      return e.data.code === "compaction"
        ? state
        : commit(state, [{ kind: "notice", tone: "warning", text: e.data.message }]);
    case "error": {
      // The advice (what to do about it) is added where the provider and model are known.
      const failure = e.data as AdvisedFailure;
      const text = `${failure.errorName}: ${failure.message}${failure.advice ? `\n${failure.advice}` : ""}`;
      // What was streamed before the failure stays, marked as cut; the message goes back into
      // the input, ready to be sent again.
      // (Unless an earlier attempt's text is kept already: this one started the same answer again.)
      const cut = flushLive(state.cutKept ? { ...state, streaming: undefined } : state);
      const marked: NewItem[] =
        !state.cutKept && state.streaming?.text.trim()
          ? [{ kind: "notice", tone: "warning", text: "cut off" }]
          : [];
      const back = state.unanswered !== undefined ? fillInput(cut, [state.unanswered]) : cut;
      return commit({ ...back, retrying: undefined, retries: 0, cutKept: false, unanswered: undefined }, [
        ...marked,
        { kind: "notice", tone: "error", text },
      ]);
    }
    case "processing_end": {
      const flushed = { ...flushLive(state), unanswered: undefined };
      const aborted = e.data.reason === "aborted";
      const items: NewItem[] = aborted ? [{ kind: "notice", tone: "warning", text: "Interrupted." }] : [];
      // An interrupted turn drops the messages queued behind it: they go back into the input.
      const next = aborted && state.queued.length > 0 ? fillInput(flushed, state.queued) : flushed;
      return commit(
        {
          ...next,
          busy: false,
          activity: undefined,
          retrying: undefined,
          retries: 0,
          cutKept: false,
          queued: aborted ? [] : next.queued,
        },
        items,
      );
    }
    default:
      return onOther(state, event);
  }
}

/** A subagent's own event: its progress line changes; its end becomes one line of the transcript. */
function onSubagentEvent(
  state: TranscriptState,
  data: Extract<SessionEvent, { kind: "subagent_event" }>["data"],
): TranscriptState {
  const inner = data.event;
  const current = state.subagents.find((a) => a.agentId === data.agentId);
  const update = (patch: Partial<SubagentView>): TranscriptState => {
    const base: SubagentView = current ?? {
      agentId: data.agentId,
      ...(data.parentCallId !== undefined && { parentCallId: data.parentCallId }),
      ...(data.agentType !== undefined && { agentType: data.agentType }),
      activity: "starting",
      toolCalls: 0,
    };
    const next = { ...base, ...patch };
    return {
      ...state,
      subagents: current
        ? state.subagents.map((a) => (a === current ? next : a))
        : [...state.subagents, next],
    };
  };
  switch (inner.kind) {
    case "session_start":
    case "user_input":
      return update({});
    case "assistant_text_start":
      return update({ activity: "thinking" });
    case "tool_call_start": {
      const target = targetOf(inner.data.toolName, inner.data.arguments);
      return update({
        activity: `${inner.data.toolName}${target ? ` ${target}` : ""}`,
        toolCalls: (current?.toolCalls ?? 0) + 1,
      });
    }
    case "processing_end": {
      const name = data.agentType ?? "subagent";
      const calls = current?.toolCalls ?? 0;
      const rest = { ...state, subagents: state.subagents.filter((a) => a.agentId !== data.agentId) };
      return commit(rest, [
        {
          kind: "notice",
          tone: inner.data.reason === "error" || inner.data.reason === "aborted" ? "warning" : "info",
          text: `↳ ${name} ${inner.data.reason === "completed" || inner.data.reason === "awaiting_input" ? "finished" : `stopped (${inner.data.reason})`} after ${calls} tool call${calls === 1 ? "" : "s"}`,
        },
      ]);
    }
    default:
      return current ? state : update({});
  }
}

function onOther(state: TranscriptState, event: RuntimeNotice | LooseEvent): TranscriptState {
  const n = event as RuntimeNotice;
  switch (n.kind) {
    case "todos_changed":
      return { ...state, todos: n.todos };
    case "steering_pending":
      return { ...state, steering: n.messages };
    case "steering_dropped":
      return fillInput(state, n.messages);
    case "conversation_rewound":
      return fillInput({ ...state, queued: [], steering: [] }, [n.text]);
    case "warning":
      // A warning about a retry is the countdown's line (it shows the reason), not one more notice.
      if (n.retry === undefined) return commit(state, [{ kind: "notice", tone: "warning", text: n.message }]);
      return {
        ...state,
        retries: (state.retries ?? 0) + 1,
        retrying: { ...n.retry, attempt: Math.max((state.retries ?? 0) + 1, n.retry.attempt) },
      };
    case "hook_output":
      return commit(state, [{ kind: "notice", tone: "info", text: n.text }]);
    case "mode_changed":
    case "model_changed":
    case "session_changed":
    case "checkpoint_restored":
      // The status line shows mode and model (a line per Shift+Tab would be noise); the commands
      // that replace the session or restore files print their own line.
      return state;
  }
  const loose = event as LooseEvent;
  const data = (loose.data ?? {}) as Record<string, unknown>;
  if (loose.kind === "compaction_start")
    return { ...state, activity: "Compacting the conversation", compacting: String(data.reason) };
  if (loose.kind === "compaction_end") {
    // /compact prints one line of its own with the outcome (a failure included).
    if (state.compacting === "manual") return { ...state, activity: undefined, compacting: undefined };
    const before = Number(data.tokensBefore);
    const after = Number(data.tokensAfter);
    const parts = [`Compacted the conversation: ${tokens(before)} → ${tokens(after)} tokens`];
    const pruned = Number(data.prunedToolOutputs);
    // Never "compacted" for a history left as it was.
    if (!(pruned > 0) && data.summarized !== true)
      return commit({ ...state, activity: undefined, compacting: undefined }, [
        {
          kind: "notice",
          tone: "warning",
          text: `Compaction shrank nothing (${tokens(before)} tokens in use).`,
        },
      ]);
    if (pruned > 0) parts.push(`${pruned} old tool output${pruned === 1 ? "" : "s"} pruned`);
    if (data.summarized === true) parts.push("earlier turns summarised");
    return commit({ ...state, activity: undefined, compacting: undefined }, [
      { kind: "notice", tone: "info", text: parts.join(", ") },
    ]);
  }
  return state;
}

/** `outputs` with `call`'s whole output added last (bounded in count and size). */
function keepOutput(
  outputs: readonly FullOutput[],
  call: ToolCallView,
  diff: string | undefined = call.result?.details?.diff,
): readonly FullOutput[] {
  // An edit's output is a line of text; what there is to read in full is its diff.
  const text = diff ? diff : call.output;
  const full: FullOutput = {
    callId: call.callId,
    toolName: call.toolName,
    arguments: call.arguments,
    output: text.slice(0, OUTPUT_CHARS_KEPT),
    isDiff: Boolean(diff),
    cutChars: Math.max(0, text.length - OUTPUT_CHARS_KEPT),
  };
  return [...outputs, full].slice(-OUTPUTS_KEPT);
}

/** Adds `texts` (one per line) as the next fill of the input box. */
function fillInput(state: TranscriptState, texts: readonly string[]): TranscriptState {
  const fill = { id: state.nextId, text: texts.join("\n") };
  return { ...state, nextId: state.nextId + 1, inputFills: [...state.inputFills, fill].slice(-FILLS_KEPT) };
}

/** Commits what is still live when a cycle ends: a partial message and calls that never ended. */
function flushLive(state: TranscriptState): TranscriptState {
  const items: NewItem[] = [];
  const s = state.streaming;
  if (s?.text.trim()) items.push({ kind: "assistant", text: s.text.trim(), first: !s.committedAny });
  for (const call of state.running)
    items.push({
      kind: "tool",
      call: {
        ...call,
        output: preview(call.output),
        result: {
          isError: true,
          durationMs: 0,
          outputLines: countLines(call.output),
          details: { interrupted: true },
        },
      },
    });
  return commit({ ...state, streaming: undefined, running: [] }, items);
}

/**
 * Where streamed Markdown can be cut so the part before is final: after the last blank line
 * outside a code fence. 0 when there is no such place yet.
 */
export function blockBoundary(text: string): number {
  let fence: string | undefined;
  let cut = 0;
  let offset = 0;
  let previousBlank = false;
  for (const line of text.split("\n")) {
    const end = offset + line.length + 1;
    // The last piece has no newline yet: it may still grow, so it is never a boundary.
    if (end > text.length) break;
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) fence = marker;
    else if (fence !== undefined && marker && marker[0] === fence[0] && marker.length >= fence.length)
      fence = undefined;
    const blank = line.trim() === "";
    if (fence === undefined && blank && !previousBlank && offset > 0) cut = end;
    previousBlank = blank;
    offset = end;
  }
  return cut;
}

function tail(text: string): string {
  return text.length > RUNNING_TAIL_CHARS ? text.slice(text.length - RUNNING_TAIL_CHARS) : text;
}

function preview(output: string): string {
  const head = output.length > PREVIEW_CHARS ? output.slice(0, PREVIEW_CHARS) : output;
  return head.split("\n").slice(0, PREVIEW_LINES).join("\n");
}

function countLines(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** 12345 → "12.3k". */
export function tokens(n: number): string {
  if (!Number.isFinite(n)) return "?";
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
