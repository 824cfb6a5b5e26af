import type { WireBody } from "./wire.js";

/**
 * Each tool definition's and system block's JSON, encoded once: translated blocks are shared
 * between requests and never changed (see translateMessages and applyCacheBreakpoints).
 */
const blockBytes = new WeakMap<object, Buffer>();

const utf8 = (text: string): Buffer => Buffer.from(text, "utf8");
const COMMA = utf8(",");
const OPEN_LIST = utf8("[");
const CLOSE_LIST = utf8("]");
const CLOSE_OBJECT = utf8("}");
const MESSAGE_HEADS: Readonly<Record<string, Buffer>> = {
  user: utf8('{"role":"user","content":['),
  assistant: utf8('{"role":"assistant","content":['),
};
const CLOSE_MESSAGE = utf8("]}");

function bytesOf(value: unknown): Buffer {
  if (typeof value !== "object" || value === null) return utf8(JSON.stringify(value) ?? "null");
  let bytes = blockBytes.get(value);
  if (bytes === undefined) {
    bytes = utf8(JSON.stringify(value));
    blockBytes.set(value, bytes);
  }
  return bytes;
}

/** A list of blocks, each element's bytes from the cache; anything else serialised as it is. */
function pushList(out: Buffer[], value: unknown): void {
  if (!Array.isArray(value)) {
    out.push(utf8(JSON.stringify(value) ?? "null"));
    return;
  }
  out.push(OPEN_LIST);
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out.push(COMMA);
    out.push(bytesOf(value[i]));
  }
  out.push(CLOSE_LIST);
}

/** A message: the common shape, {role, content: [...]}, is written here; anything else as it is. */
function pushMessage(out: Buffer[], message: unknown): void {
  const m = message as { role?: unknown; content?: unknown } | null;
  const head = typeof m?.role === "string" ? MESSAGE_HEADS[m.role] : undefined;
  if (m === null || head === undefined || !Array.isArray(m.content) || Object.keys(m).length !== 2) {
    out.push(utf8(JSON.stringify(message) ?? "null"));
    return;
  }
  out.push(head);
  // Not through the block cache: the conversation's encoded list keeps these bytes already.
  const content = m.content as unknown[];
  let json = "";
  for (let i = 0; i < content.length; i++) json += (i > 0 ? "," : "") + JSON.stringify(content[i]);
  out.push(utf8(json), CLOSE_MESSAGE);
}

/** The messages of one encoded request, where each one's bytes end, and the bytes. */
interface EncodedMessages {
  readonly messages: readonly unknown[];
  readonly ends: readonly number[];
  readonly bytes: Buffer;
}

/**
 * The last encoded message list of each conversation, found by its first message's first block
 * (the same object in every request of a conversation). The next request's leading messages that
 * are the same (the same message objects, or the same role and block objects) are copied as one
 * range of bytes, so the work per request grows with what changed, not with the conversation.
 */
const conversations = new WeakMap<object, EncodedMessages>();

/** The conversation key: the first block of the first message, when it is an object. */
function conversationKey(messages: readonly unknown[]): object | undefined {
  const content = (messages[0] as { content?: unknown } | undefined)?.content;
  const first = Array.isArray(content) ? content[0] : undefined;
  return typeof first === "object" && first !== null ? first : undefined;
}

/** Whether message `b` encodes as `a` did: the same object, or {role, content} with the same blocks. */
function sameMessage(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = a as { role?: unknown; content?: unknown } | null;
  const y = b as { role?: unknown; content?: unknown } | null;
  if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
  if (x.role !== y.role || !Array.isArray(x.content) || !Array.isArray(y.content)) return false;
  if (x.content.length !== y.content.length || fieldCount(x) !== 2 || fieldCount(y) !== 2) return false;
  for (let i = 0; i < x.content.length; i++) if (x.content[i] !== y.content[i]) return false;
  return true;
}

function fieldCount(value: object): number {
  let n = 0;
  for (const _ in value) n++;
  return n;
}

/**
 * Adds the JSON list of messages to `out`, reusing the longest unchanged run of the conversation's
 * last list; returns what to call with the finished body and where the list starts in it, so that
 * the conversation keeps a view of the body's bytes rather than a copy.
 */
function encodeMessages(messages: readonly unknown[], out: Buffer[]): (body: Buffer, at: number) => void {
  const key = conversationKey(messages);
  const last = key !== undefined ? conversations.get(key) : undefined;
  let kept = 0;
  if (last !== undefined) {
    const limit = Math.min(messages.length, last.messages.length);
    while (kept < limit && sameMessage(last.messages[kept], messages[kept])) kept++;
  }
  const ends: number[] = last !== undefined && kept > 0 ? last.ends.slice(0, kept) : [];
  let length: number;
  if (last !== undefined && kept > 0) {
    const prefix = last.bytes.subarray(0, last.ends[kept - 1]);
    out.push(prefix);
    length = prefix.length;
  } else {
    out.push(OPEN_LIST);
    length = OPEN_LIST.length;
  }
  for (let i = kept; i < messages.length; i++) {
    const from = out.length;
    if (i > 0) out.push(COMMA);
    pushMessage(out, messages[i]);
    for (let j = from; j < out.length; j++) length += (out[j] as Buffer).length;
    ends.push(length);
  }
  out.push(CLOSE_LIST);
  length += CLOSE_LIST.length;
  return (body, at) => {
    // The list is the caller's body's own, not changed after it is sent.
    if (key !== undefined) conversations.set(key, { messages, ends, bytes: body.subarray(at, at + length) });
  };
}

/**
 * The request body as UTF-8 JSON, equal (as JSON) to JSON.stringify(body), with `tools`,
 * `system` and `messages` last. Blocks are treated as immutable values: one changed after it
 * was first encoded would be sent as it was.
 */
export function encodeBody(body: WireBody): Buffer {
  const { messages, system, tools, ...rest } = body;
  const out: Buffer[] = [];
  const head = JSON.stringify(rest);
  let separator = head.length > 2 ? "," : "";
  out.push(utf8(head.slice(0, -1)));
  const field = (name: string) => {
    out.push(utf8(`${separator}"${name}":`));
    separator = ",";
  };
  if (tools !== undefined) {
    field("tools");
    pushList(out, tools);
  }
  if (system !== undefined) {
    field("system");
    pushList(out, system);
  }
  field("messages");
  let at = 0;
  for (const piece of out) at += piece.length;
  const remember = encodeMessages(messages, out);
  out.push(CLOSE_OBJECT);
  const bytes = Buffer.concat(out);
  remember(bytes, at);
  return bytes;
}
