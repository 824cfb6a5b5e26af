import type { SessionConfigOption, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { SessionEvent, Turn } from "@attractor/agent";
import type { RuntimeNotice, RuntimeUpdate, TodoItem } from "@attractor/runtime";
import { typedText } from "@attractor/runtime";
import type { FileChange } from "./client-environment.js";
import { modeId } from "./modes.js";
import {
  callFiles,
  callLocations,
  changeContent,
  outputBlock,
  textContent,
  toolKind,
  toolTitle,
} from "./tool-calls.js";

/** Command output shown in the editor is cut to its last this many characters while it runs. */
const LIVE_OUTPUT_CHARS = 32_000;
/** A tool's answer shown in the editor is cut to this many characters. */
const RESULT_CHARS = 16_000;
/** How often a running command's output is sent again as it grows. */
const OUTPUT_INTERVAL_MS = 100;

/** Where the translator finds what it needs besides the events. */
export interface TranslatorContext {
  /** The directory relative paths in tool arguments resolve against. */
  readonly cwd: string;
  /** The id of the runtime's current top-level session (a subagent's events are nested). */
  readonly sessionId: () => string;
  /** A position in the record of file changes (see RecordingEnvironment.mark). */
  readonly mark: () => number;
  /** How a file changed after a mark (taken once); undefined when it did not. */
  readonly takeChange: (path: string, since: number) => FileChange | undefined;
  /** The session's config options as they are now (sent again when the mode or model changes). */
  readonly configOptions: () => SessionConfigOption[];
  /** Sends one update now. */
  readonly send: (update: SessionUpdate) => void;
}

/** Turns runtime updates into ACP session updates, keeping the state of the calls in flight. */
export interface UpdateTranslator {
  onUpdate(update: RuntimeUpdate): void;
  /** Marks a call as running (it passed the permission check). */
  started(callId: string): void;
  /** The running shell call of `command`, to attach a question about it to; undefined if none. */
  runningCommand(command: string): string | undefined;
  /** Sends what is still buffered (the last output of a command). */
  flush(): void;
}

/** Creates the translator for one ACP session. */
export function createUpdateTranslator(context: TranslatorContext): UpdateTranslator {
  /** Calls shown and not finished, with the mark of the file record when each started. */
  const open = new Map<string, number>();
  const running = new Set<string>();
  /** The command of each open shell call. */
  const commands = new Map<string, string>();
  const outputs = new Map<string, { text: string; timer: NodeJS.Timeout | undefined }>();
  const send = context.send;

  const markRunning = (callId: string) => {
    // A subagent's calls pass the same permission check; the editor knows only the parent's.
    if (running.has(callId) || !open.has(callId)) return;
    running.add(callId);
    send({ sessionUpdate: "tool_call_update", toolCallId: callId, status: "in_progress" });
  };
  const sendOutput = (callId: string) => {
    const live = outputs.get(callId);
    if (!live) return;
    live.timer = undefined;
    send({
      sessionUpdate: "tool_call_update",
      toolCallId: callId,
      content: [textContent(outputBlock(live.text.slice(-LIVE_OUTPUT_CHARS)))],
    });
  };

  const onEvent = (event: SessionEvent) => {
    // A subagent's work shows as its spawn call; its own events stay inside it.
    if (event.sessionId !== context.sessionId()) return;
    switch (event.kind) {
      case "assistant_text_delta":
        if (event.data.delta === "") return;
        send({
          sessionUpdate: event.data.channel === "reasoning" ? "agent_thought_chunk" : "agent_message_chunk",
          content: { type: "text", text: event.data.delta },
        });
        return;
      case "tool_call_start": {
        const { toolName, callId, arguments: args } = event.data;
        open.set(callId, context.mark());
        if (typeof args.command === "string") commands.set(callId, args.command);
        send({
          sessionUpdate: "tool_call",
          toolCallId: callId,
          title: toolTitle(toolName, args),
          kind: toolKind(toolName, args),
          status: "pending",
          locations: callLocations(toolName, args, context.cwd),
          rawInput: args,
        });
        return;
      }
      case "tool_call_output_delta": {
        markRunning(event.data.callId);
        const live = outputs.get(event.data.callId) ?? { text: "", timer: undefined };
        live.text = (live.text + event.data.delta).slice(-LIVE_OUTPUT_CHARS * 2);
        outputs.set(event.data.callId, live);
        live.timer ??= setTimeout(() => sendOutput(event.data.callId), OUTPUT_INTERVAL_MS);
        return;
      }
      case "tool_call_end": {
        const { toolName, callId, isError, output } = event.data;
        const live = outputs.get(callId);
        if (live?.timer) clearTimeout(live.timer);
        outputs.delete(callId);
        running.delete(callId);
        const since = open.get(callId) ?? 0;
        open.delete(callId);
        commands.delete(callId);
        const args = event.data.arguments ?? {};
        // Only what changed since the call started is its own (a subagent may have written before).
        const changes = callFiles(toolName, args, context.cwd).flatMap((p) => {
          const change = context.takeChange(p, since);
          return change ? [change] : [];
        });
        const diff = changeContent(changes);
        const content: ToolCallContent[] = [...diff.content];
        if (isError || toolKind(toolName, args) === "execute" || diff.content.length === 0) {
          const shown = output.length > RESULT_CHARS ? `${output.slice(0, RESULT_CHARS)}\n…` : output;
          if (shown.trim() !== "")
            content.push(textContent(toolKind(toolName, args) === "execute" ? outputBlock(shown) : shown));
        }
        send({
          sessionUpdate: "tool_call_update",
          toolCallId: callId,
          status: isError ? "failed" : "completed",
          content,
          ...(diff.locations.length > 0 && { locations: diff.locations }),
          rawOutput: {
            output: output.slice(0, RESULT_CHARS),
            ...(event.data.details?.exitCode !== undefined && { exitCode: event.data.details.exitCode }),
            ...(event.data.errorCode !== undefined && { errorCode: event.data.errorCode }),
          },
        });
        return;
      }
      case "error":
        // The prompt's own answer carries a fatal error; a recovered one is shown in the message.
        if (!event.data.fatal)
          send({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: `\n⚠ ${event.data.message}\n` },
          });
        return;
      default:
        return;
    }
  };

  const onNotice = (notice: RuntimeNotice) => {
    switch (notice.kind) {
      case "todos_changed":
        send(planUpdate(notice.todos));
        return;
      case "mode_changed":
        send({ sessionUpdate: "current_mode_update", currentModeId: modeId(notice.mode) });
        send({ sessionUpdate: "config_option_update", configOptions: context.configOptions() });
        return;
      case "model_changed":
        send({ sessionUpdate: "config_option_update", configOptions: context.configOptions() });
        return;
      case "warning":
        send({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `\n⚠ ${notice.message}\n` },
        });
        return;
      case "hook_output":
        send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n${notice.text}\n` } });
        return;
      default:
        return;
    }
  };

  return {
    onUpdate(update) {
      if (update.source === "session") onEvent(update.event);
      else onNotice(update.notice);
    },
    started: markRunning,
    runningCommand(command) {
      for (const [callId, text] of commands) if (text === command) return callId;
      return undefined;
    },
    flush() {
      for (const [callId, live] of outputs) {
        if (live.timer) {
          clearTimeout(live.timer);
          sendOutput(callId);
        }
      }
    },
  };
}

/** The todo list as an ACP plan (the whole list each time, as the protocol wants). */
export function planUpdate(todos: readonly TodoItem[]): SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: todos.map((t) => ({ content: t.content, priority: "medium", status: t.status })),
  };
}

/**
 * A stored conversation as the updates that would have shown it: the user's messages as typed,
 * the answers, and each tool call with its result (session/load replays them).
 */
export function historyUpdates(history: readonly Turn[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const turn of history) {
    switch (turn.kind) {
      case "user": {
        const text = typedText(turn.content);
        if (text !== "")
          updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
        break;
      }
      case "assistant":
        if (turn.reasoning)
          updates.push({
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: turn.reasoning },
          });
        if (turn.content !== "")
          updates.push({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: turn.content },
          });
        for (const call of turn.toolCalls)
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: call.id,
            title: toolTitle(call.name, call.arguments),
            kind: toolKind(call.name, call.arguments),
            status: "pending",
            locations: callLocations(call.name, call.arguments, cwd),
            rawInput: call.arguments,
          });
        break;
      case "tool_results":
        for (const result of turn.results) {
          const shown =
            result.content.length > RESULT_CHARS
              ? `${result.content.slice(0, RESULT_CHARS)}\n…`
              : result.content;
          updates.push({
            sessionUpdate: "tool_call_update",
            toolCallId: result.toolCallId,
            status: result.isError ? "failed" : "completed",
            content: shown.trim() === "" ? [] : [textContent(shown)],
          });
        }
        break;
      case "summary":
        updates.push({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `(Earlier conversation, summarised)\n\n${turn.summary}` },
        });
        break;
      default:
        break;
    }
  }
  return updates;
}
