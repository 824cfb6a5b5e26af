import { randomUUID } from "node:crypto";
import type { SessionEvent, SessionEventOf, WebSearchReport } from "@attractor/agent";
import type { PermissionMode } from "../permissions/index.js";
import type { RuntimeNotice } from "../runtime/index.js";

/** What the `system`/`init` line says about the run, known when the session starts. */
export interface StreamInit {
  readonly cwd: string;
  readonly tools: readonly string[];
  readonly model: string;
  readonly provider: string;
  readonly permissionMode: PermissionMode;
  readonly version: string;
  /** MCP servers and their state. */
  readonly mcpServers?: readonly { readonly name: string; readonly status: string }[];
}

/** Claude Code's content blocks, as far as attractor produces them. */
export type ClaudeContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
    }
  | {
      readonly type: "tool_result";
      readonly tool_use_id: string;
      readonly content: string;
      readonly is_error: boolean;
    };

/** One line of the stream-json output (the result line is HeadlessResult). */
export type ClaudeStreamLine =
  | {
      readonly type: "system";
      readonly subtype: "init";
      readonly session_id: string;
      readonly uuid: string;
      readonly cwd: string;
      readonly tools: readonly string[];
      readonly mcp_servers: readonly { readonly name: string; readonly status: string }[];
      readonly model: string;
      readonly permissionMode: string;
      readonly apiKeySource: string;
      readonly provider: string;
      readonly attractor_version: string;
    }
  | {
      readonly type: "assistant";
      readonly session_id: string;
      readonly uuid: string;
      readonly parent_tool_use_id: null;
      readonly message: {
        readonly id: string;
        readonly type: "message";
        readonly role: "assistant";
        readonly model: string;
        readonly content: readonly ClaudeContentBlock[];
        readonly stop_reason: string;
        readonly usage: {
          readonly input_tokens: number;
          readonly output_tokens: number;
          readonly cache_read_input_tokens: number;
          readonly cache_creation_input_tokens: number;
        };
      };
    }
  | {
      readonly type: "user";
      readonly session_id: string;
      readonly uuid: string;
      readonly parent_tool_use_id: null;
      readonly message: { readonly role: "user"; readonly content: readonly ClaudeContentBlock[] };
      /** The tool's structured result, as Claude Code gives it (web_search: WebSearchToolResult). */
      readonly tool_use_result?: WebSearchToolResult;
    }
  | {
      readonly type: "system";
      readonly subtype: "warning" | "notice" | "error";
      readonly session_id: string;
      readonly uuid: string;
      readonly message: string;
    }
  | {
      /** attractor's own finer events (`--verbose`): consumers of Claude Code's stream ignore the type. */
      readonly type: "attractor_event";
      readonly session_id: string;
      readonly uuid: string;
      readonly event: SessionEvent | { readonly kind: "notice"; readonly data: RuntimeNotice };
    };

/**
 * A web_search result in Claude Code's shape for its WebSearch output (query, results with title,
 * url and snippet, total_results), each result's `metadata` saying whether and what the answer
 * cites from it, and the answer itself with `[n]` marks numbering the results from 1.
 */
export interface WebSearchToolResult {
  readonly query: string;
  readonly results: readonly {
    readonly title: string;
    readonly url: string;
    readonly snippet: string;
    readonly metadata: {
      readonly n: number;
      readonly cited: boolean;
      readonly cited_text?: readonly string[];
      readonly page_age?: string;
    };
  }[];
  readonly total_results: number;
  readonly answer?: string;
  /** Who searched: the model provider or the search service. */
  readonly backend: string;
}

/** The stream-json form of a web_search call's report (its details.webSearch), if it has one. */
export function webSearchToolResult(details: unknown): WebSearchToolResult | undefined {
  const report = (details as { webSearch?: WebSearchReport } | undefined)?.webSearch;
  if (report === undefined || !Array.isArray(report.sources)) return undefined;
  return {
    query: report.query,
    results: report.sources.map((s) => ({
      title: s.title ?? s.url,
      url: s.url,
      snippet: s.snippet ?? s.citedTexts?.join(" … ") ?? "",
      metadata: {
        n: s.n,
        cited: s.cited,
        ...(s.citedTexts !== undefined && { cited_text: s.citedTexts }),
        ...(s.pageAge !== undefined && { page_age: s.pageAge }),
      },
    })),
    total_results: report.sources.length,
    ...(report.answer !== undefined && { answer: report.answer }),
    backend: report.backend,
  };
}

const isSessionEvent = (e: SessionEvent | RuntimeNotice): e is SessionEvent =>
  "sessionId" in e && "data" in e && "timestamp" in e;

/** Claude Code's permission mode names for ours. */
export const CLAUDE_PERMISSION_MODE: Readonly<Record<PermissionMode, string>> = {
  plan: "plan",
  normal: "default",
  "auto-edit": "acceptEdits",
  yolo: "bypassPermissions",
};

/** Claude Code's stop reasons for our finish reasons. */
function stopReason(finishReason: string, toolCalls: number): string {
  if (toolCalls > 0) return "tool_use";
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

/**
 * Translates a run's events into Claude Code's message stream: one `system`/`init` line, an
 * `assistant` line per model response (text, thinking and tool_use blocks), a `user` line per
 * tool result. An answer's tool calls carry their arguments, which arrive with each call's start,
 * so the answer is held until every call it made has started (or the next answer begins).
 */
export function createClaudeStream(options: {
  readonly init: () => StreamInit;
  readonly emit: (line: ClaudeStreamLine) => void;
  /** Also emit attractor's own events as `attractor_event` lines. */
  readonly verbose?: boolean;
}): { onEvent(event: SessionEvent | RuntimeNotice): void; flush(): void } {
  let sessionId = "";
  let mainSession: string | undefined;
  let pending: { end: SessionEventOf<"assistant_text_end">; inputs: Map<string, unknown> } | undefined;
  const heldResults: SessionEventOf<"tool_call_end">[] = [];
  const earlyNotices: RuntimeNotice[] = [];

  const uuid = () => randomUUID();

  const emitAssistant = () => {
    if (!pending) return;
    const { end, inputs } = pending;
    pending = undefined;
    const content: ClaudeContentBlock[] = [];
    if (end.data.reasoning) content.push({ type: "thinking", thinking: end.data.reasoning });
    if (end.data.text !== "") content.push({ type: "text", text: end.data.text });
    for (const call of end.data.toolCalls)
      content.push({
        type: "tool_use",
        id: call.id,
        name: call.name,
        input: (inputs.get(call.id) as Record<string, unknown> | undefined) ?? {},
      });
    const u = end.data.usage;
    options.emit({
      type: "assistant",
      session_id: sessionId,
      uuid: uuid(),
      parent_tool_use_id: null,
      message: {
        id: end.data.responseId ?? `msg_${uuid().replace(/-/g, "")}`,
        type: "message",
        role: "assistant",
        model: options.init().model,
        content,
        stop_reason: stopReason(end.data.finishReason, end.data.toolCalls.length),
        usage: {
          input_tokens: u.inputTokens,
          output_tokens: u.outputTokens,
          cache_read_input_tokens: u.cacheReadTokens ?? 0,
          cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
        },
      },
    });
    for (const result of heldResults.splice(0)) emitResult(result);
  };

  const emitResult = (end: SessionEventOf<"tool_call_end">) => {
    const search = end.data.isError ? undefined : webSearchToolResult(end.data.details);
    options.emit({
      type: "user",
      session_id: sessionId,
      uuid: uuid(),
      parent_tool_use_id: null,
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: end.data.callId,
            content: end.data.output,
            is_error: end.data.isError,
          },
        ],
      },
      ...(search !== undefined && { tool_use_result: search }),
    });
  };

  const emitNotice = (notice: RuntimeNotice) => {
    if (options.verbose)
      options.emit({
        type: "attractor_event",
        session_id: sessionId,
        uuid: uuid(),
        event: { kind: "notice", data: notice },
      });
    else if (notice.kind === "warning")
      options.emit({
        type: "system",
        subtype: "warning",
        session_id: sessionId,
        uuid: uuid(),
        message: notice.message,
      });
  };

  const complete = () => {
    const held = pending;
    return held?.end.data.toolCalls.every((c) => held.inputs.has(c.id)) === true;
  };

  return {
    onEvent(event) {
      if (!isSessionEvent(event)) {
        if (mainSession === undefined) earlyNotices.push(event);
        else emitNotice(event);
        return;
      }
      if (event.kind === "session_start" && mainSession === undefined) {
        mainSession = event.sessionId;
        sessionId = event.sessionId;
        const init = options.init();
        options.emit({
          type: "system",
          subtype: "init",
          session_id: sessionId,
          uuid: uuid(),
          cwd: init.cwd,
          tools: init.tools,
          mcp_servers: init.mcpServers ?? [],
          model: init.model,
          permissionMode: CLAUDE_PERMISSION_MODE[init.permissionMode],
          apiKeySource: "environment",
          provider: init.provider,
          attractor_version: init.version,
        });
        for (const notice of earlyNotices.splice(0)) emitNotice(notice);
      }
      if (options.verbose)
        options.emit({ type: "attractor_event", session_id: sessionId, uuid: uuid(), event });
      // Subagents' own events stay in attractor's event stream.
      if (event.sessionId !== mainSession) return;
      switch (event.kind) {
        case "assistant_text_start":
          emitAssistant();
          break;
        case "assistant_text_end":
          emitAssistant();
          pending = { end: event, inputs: new Map() };
          if (complete()) emitAssistant();
          break;
        case "tool_call_start":
          pending?.inputs.set(event.data.callId, event.data.arguments);
          if (complete()) emitAssistant();
          break;
        case "tool_call_end":
          if (pending) heldResults.push(event);
          else emitResult(event);
          break;
        case "error":
          emitAssistant();
          if (!options.verbose)
            options.emit({
              type: "system",
              subtype: "error",
              session_id: sessionId,
              uuid: uuid(),
              message: event.data.message,
            });
          break;
        case "processing_end":
          emitAssistant();
          break;
      }
    },
    flush() {
      emitAssistant();
      for (const notice of earlyNotices.splice(0)) emitNotice(notice);
    },
  };
}
