import {
  type ContentPart,
  developerMessage,
  type Message,
  toolResultMessage,
  userMessage,
} from "@attractor/llm";
import type { Turn } from "../types/turn.js";

/** The result sent for a call the history has no result for (a session stopped mid-round). */
export const MISSING_TOOL_RESULT =
  "No result was recorded for this tool call: the session stopped before it finished.";

/**
 * A turn's messages. Not kept per turn: a history given again keeps the messages of its unchanged
 * turns in its memo (below), and a long session would otherwise hold each turn twice.
 */
function turnMessages(turn: Turn): readonly Message[] {
  let messages: readonly Message[];
  switch (turn.kind) {
    case "user": {
      const parts: ContentPart[] = [{ kind: "text", text: turn.content }];
      for (const image of turn.images ?? []) parts.push({ kind: "image", image });
      messages = [userMessage(parts)];
      break;
    }
    case "steering":
    case "summary":
      messages = [userMessage(turn.content)];
      break;
    case "system":
      messages = [developerMessage(turn.content)];
      break;
    case "assistant":
      messages = [{ role: "assistant", content: assistantParts(turn) }];
      break;
    case "tool_results":
      messages = turn.results.map((r) =>
        toolResultMessage(r.toolCallId, r.content, r.isError, {
          name: r.toolName,
          ...(r.image !== undefined && { image: r.image }),
          ...(r.document !== undefined && { document: r.document }),
        }),
      );
      break;
  }
  return messages;
}

/** What a history array was last turned into, so the next call redoes only what changed. */
interface HistoryMemo {
  /** The history's turns at the time (the array itself changes in place). */
  readonly turns: readonly Turn[];
  readonly messages: readonly Message[];
  /**
   * ends[i]: how many messages turns [0, i) made, where those messages do not depend on turn i
   * and later; -1 inside an assistant turn and its results, and after a round without results.
   */
  readonly ends: readonly number[];
}

const memos = new WeakMap<readonly Turn[], HistoryMemo>();

/**
 * The messages a history turns into for the model: steering and summaries as user messages, one
 * tool message per result. A call without a recorded result (history stored while a round was
 * running) gets an error result, so providers that require one result per call accept the request.
 * A history array given again (a session's, extended or edited in place) is redone only from its
 * first changed turn. The result is shared with later calls: read it, never change it.
 */
export function historyToMessages(history: readonly Turn[]): readonly Message[] {
  const memo = memos.get(history);
  let start = 0;
  let messages: Message[] = [];
  let ends: number[] = [0];
  if (memo !== undefined) {
    const limit = Math.min(memo.turns.length, history.length);
    let same = 0;
    while (same < limit && memo.turns[same] === history[same]) same++;
    while (same > 0 && (memo.ends[same] ?? -1) < 0) same--;
    start = same;
    messages = memo.messages.slice(0, memo.ends[same]);
    ends = memo.ends.slice(0, same + 1);
  }
  for (let i = start; i < history.length; i++) {
    const turn = history[i] as Turn;
    for (const m of turnMessages(turn)) messages.push(m);
    if (turn.kind !== "assistant" || turn.toolCalls.length === 0) {
      ends[i + 1] = messages.length;
      continue;
    }
    // The results come in the next turn; calls it does not answer get an error result after it.
    const next = history[i + 1];
    const answers = next?.kind === "tool_results" ? next : undefined;
    if (answers !== undefined) {
      ends[i + 1] = -1;
      i++;
      for (const m of turnMessages(answers)) messages.push(m);
    }
    if (answers === undefined || !answersAll(turn.toolCalls, answers.results)) {
      const answered = new Set(answers?.results.map((r) => r.toolCallId));
      for (const call of turn.toolCalls) {
        if (!answered.has(call.id)) {
          messages.push(toolResultMessage(call.id, MISSING_TOOL_RESULT, true, { name: call.name }));
          answered.add(call.id);
        }
      }
    }
    // Without results, what this round made depends on the turn after it: not a place to resume.
    ends[i + 1] = answers === undefined ? -1 : messages.length;
  }
  memos.set(history, { turns: history.slice(), messages, ends });
  return messages;
}

/** Whether the results answer every call: the usual case, checked without allocating. */
function answersAll(
  calls: readonly { readonly id: string }[],
  results: readonly { readonly toolCallId: string }[],
): boolean {
  if (results.length < calls.length) return false;
  for (let c = 0; c < calls.length; c++) {
    const id = (calls[c] as { id: string }).id;
    if (results[c]?.toolCallId === id) continue;
    if (!results.some((r) => r.toolCallId === id)) return false;
  }
  return true;
}

function assistantParts(turn: Extract<Turn, { kind: "assistant" }>): readonly ContentPart[] {
  if (turn.parts.length > 0) return turn.parts;
  // History written by hand (or by an older store) may carry only text and calls.
  const parts: ContentPart[] = [];
  if (turn.content !== "") parts.push({ kind: "text", text: turn.content });
  for (const toolCall of turn.toolCalls) parts.push({ kind: "tool_call", toolCall });
  return parts;
}
