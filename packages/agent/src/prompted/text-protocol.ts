import { randomUUID } from "node:crypto";
import type { ContentPart, FinishReason, Response, StreamEvent, ToolCallData } from "@attractor/llm";
import { CALL_FENCES, FENCE_CLOSE, fenceCloseIn } from "./fenced-calls.js";
import { findCallBlocks, meantAsCall, parseToolCalls, TOOL_CALL_OPEN } from "./parser.js";
import {
  REASONING_TAGS,
  type SplitPiece,
  type SplitTag,
  TaggedStreamSplitter,
  TOOL_CALL_TAGS,
} from "./stream-splitter.js";

/** What a model's answer text carries besides the answer, for models that write it inline. */
export interface TextProtocol {
  /** `<tool_call>` blocks are tool calls (prompted tool calling). */
  readonly toolCalls: boolean;
  /** `<think>` blocks are reasoning (local reasoning models). */
  readonly thinkTags: boolean;
  /** A tool's parameter names, so path aliases (path, file, filePath) map onto the tool's own. */
  readonly parametersOf?: (toolName: string) => readonly string[] | undefined;
  /** Ids for calls parsed from text; random by default. */
  readonly newCallId?: () => string;
}

const THINK_ID = "think";

// Fenced calls are held back like tagged ones until the fence closes, then shown as text after all
// when they turn out not to be a call (a JSON example in the answer).
function fenceTags(protocol: TextProtocol): SplitTag[] {
  const options = protocol.parametersOf === undefined ? {} : { parametersOf: protocol.parametersOf };
  return CALL_FENCES.map((open) => ({
    open,
    close: FENCE_CLOSE,
    kind: "tool_call" as const,
    findClose: fenceCloseIn,
    classify: (raw: string) => {
      const inner = raw.slice(open.length, raw.endsWith(FENCE_CLOSE) ? -FENCE_CLOSE.length : undefined);
      return inner.includes(TOOL_CALL_OPEN) || meantAsCall(open, inner, options) ? "tool_call" : "text";
    },
  }));
}

function tagsOf(protocol: TextProtocol): SplitTag[] {
  return [
    ...(protocol.thinkTags ? REASONING_TAGS : []),
    ...(protocol.toolCalls ? [...TOOL_CALL_TAGS, ...fenceTags(protocol)] : []),
  ];
}

/** Whether the protocol changes anything; a native profile without think tags reads streams as they are. */
export function isActiveProtocol(protocol: TextProtocol): boolean {
  return protocol.toolCalls || protocol.thinkTags;
}

/**
 * Rewrites a model stream for a text protocol: think blocks become reasoning deltas, tool-call
 * blocks vanish from the text deltas (a partial tag is held back until it is known), and the
 * final response carries the parsed calls as tool_call parts, the reasoning as a thinking part and
 * the answer text without markup. Other events pass through unchanged.
 */
export async function* applyTextProtocol(
  events: AsyncIterable<StreamEvent>,
  protocol: TextProtocol,
): AsyncGenerator<StreamEvent> {
  const tags = tagsOf(protocol);
  if (tags.length === 0) {
    yield* events;
    return;
  }
  const splitter = new TaggedStreamSplitter(tags);
  let textId = "text";
  let thinking: string | undefined;

  function* forward(pieces: readonly SplitPiece[]): Generator<StreamEvent> {
    for (const piece of pieces) {
      if (piece.kind === "reasoning") {
        if (thinking === undefined) {
          thinking = "";
          yield { type: "reasoning_start", reasoningId: THINK_ID };
        }
        thinking += piece.text;
        yield { type: "reasoning_delta", reasoningId: THINK_ID, delta: piece.text };
      } else if (piece.kind === "text") {
        yield* endThinking();
        yield { type: "text_delta", textId, delta: piece.text };
      }
    }
  }
  function* endThinking(): Generator<StreamEvent> {
    if (thinking === undefined) return;
    yield { type: "reasoning_end", reasoningId: THINK_ID, thinking: { text: thinking } };
    thinking = undefined;
  }

  for await (const event of events) {
    switch (event.type) {
      case "text_start":
        textId = event.textId;
        yield event;
        break;
      case "text_delta":
        textId = event.textId;
        yield* forward(splitter.push(event.delta));
        break;
      case "text_end":
        yield* forward(splitter.flush());
        yield* endThinking();
        yield event;
        break;
      case "finish": {
        yield* forward(splitter.flush());
        yield* endThinking();
        const response = rewriteResponse(event.response, protocol);
        yield { ...event, finishReason: response.finishReason, response };
        break;
      }
      default:
        yield event;
    }
  }
}

/** The pieces of one text, with a leading reasoning block that lost its opening tag recovered. */
function splitText(text: string, tags: readonly SplitTag[], thinkTags: boolean): SplitPiece[] {
  const pieces: SplitPiece[] = [];
  let rest = text;
  if (thinkTags) {
    // Some chat templates open <think> in the prompt, so the answer starts mid-thought.
    const close = rest.indexOf("</think>");
    const open = rest.indexOf("<think>");
    if (close >= 0 && (open < 0 || close < open)) {
      const reasoning = rest.slice(0, close);
      if (reasoning.trim() !== "") pieces.push({ kind: "reasoning", text: reasoning });
      rest = rest.slice(close + "</think>".length);
    }
  }
  const splitter = new TaggedStreamSplitter(tags);
  pieces.push(...splitter.push(rest), ...splitter.flush());
  return pieces;
}

/** Answer text once markup is gone: no code fences left empty, no runs of blank lines, trimmed. */
function tidy(text: string): string {
  return text
    .replace(/```[a-zA-Z]*\s*```/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const NAME_GUESS = /"(?:name|tool|tool_name|function)"\s*:\s*"([^"\\]{1,100})"/;

/** The tool name a block that could not be read was probably meant for; "tool_call" when unknown. */
function guessName(raw: string): string {
  return NAME_GUESS.exec(raw)?.[1]?.trim() || "tool_call";
}

/**
 * The response with inline markup read out: reasoning as thinking parts, tool calls as tool_call
 * parts (ids made up, since text has none), answer text stripped and tidied. A block that could
 * not be read becomes a call whose rawArguments hold the block, so the round can report it to the
 * model (see unreadableToolCall) instead of silently dropping it.
 */
export function rewriteResponse(response: Response, protocol: TextProtocol): Response {
  const tags = tagsOf(protocol);
  if (tags.length === 0) return response;
  const newId = protocol.newCallId ?? (() => `call_${randomUUID()}`);
  const parts: ContentPart[] = [];
  const calls: ToolCallData[] = [];
  for (const part of response.message.content) {
    if (part.kind !== "text") {
      parts.push(part);
      continue;
    }
    const options = protocol.parametersOf !== undefined ? { parametersOf: protocol.parametersOf } : {};
    const pieces = splitText(part.text, tags, protocol.thinkTags);
    let text = tidy(pieces.flatMap((p) => (p.kind === "text" ? [p.text] : [])).join(""));
    let wholeCall = false;
    if (protocol.toolCalls && !pieces.some((p) => p.kind === "tool_call")) {
      // A reply that is nothing but a call object, without tags or fence.
      const whole = findCallBlocks(text, options)[0];
      if (whole !== undefined) {
        pieces.push({ kind: "tool_call", raw: `\`\`\`json\n${whole.inner}\n\`\`\`` });
        text = "";
        wholeCall = true;
      }
    }
    if (!wholeCall && pieces.length === 1 && pieces[0]?.kind === "text" && pieces[0].text === part.text) {
      parts.push(part);
      continue;
    }
    const reasoning = pieces.flatMap((p) => (p.kind === "reasoning" ? [p.text] : [])).join("");
    if (reasoning.trim() !== "") parts.push({ kind: "thinking", thinking: { text: reasoning.trim() } });
    if (text !== "") parts.push({ kind: "text", text });
    for (const piece of pieces) {
      if (piece.kind !== "tool_call") continue;
      const parsed = parseToolCalls(piece.raw, options);
      for (const call of parsed.calls)
        calls.push({ id: newId(), name: call.name, arguments: call.arguments });
      if (parsed.issues.length > 0)
        calls.push({ id: newId(), name: guessName(piece.raw), arguments: {}, rawArguments: piece.raw });
    }
  }
  for (const toolCall of calls) parts.push({ kind: "tool_call", toolCall });
  const finishReason: FinishReason =
    calls.length > 0 && response.finishReason.reason === "stop"
      ? { ...response.finishReason, reason: "tool_calls" }
      : response.finishReason;
  return { ...response, message: { ...response.message, content: parts }, finishReason };
}
