import { InvalidRequestError } from "../../errors.js";
import type {
  ContentPart,
  DocumentData,
  ImageData,
  Message,
  ProviderTool,
  Request,
  ToolChoice,
  ToolDefinition,
  ToolResultData,
  Warning,
} from "../../types/index.js";
import { resolveMedia } from "../shared/media.js";
import { applyCacheBreakpoints, countCacheBreakpoints } from "./cache.js";
import {
  ADAPTIVE_EFFORTS,
  MIN_THINKING_BUDGET,
  maxOutputTokens,
  THINKING_BUDGETS,
  thinksAdaptively,
} from "./models.js";
import { INTERLEAVED_THINKING_BETA, type WireBlock, type WireBody, type WireMessage } from "./wire.js";

const PROVIDER = "anthropic";

/** A translated request: the JSON body and the extra headers it needs. */
export interface MessagesRequest {
  readonly body: WireBody;
  readonly headers: Readonly<Record<string, string>>;
}

/** The `providerOptions.anthropic` keys this adapter interprets; every other key goes into the body. */
interface AnthropicOptions {
  readonly betaHeaders: readonly string[];
  readonly autoCache: boolean;
  readonly extra: Readonly<Record<string, unknown>>;
}

function readOptions(request: Request): AnthropicOptions {
  const { betaHeaders, beta_headers, autoCache, auto_cache, ...extra }: Record<string, unknown> =
    request.providerOptions?.[PROVIDER] ?? {};
  const betas = betaHeaders ?? beta_headers ?? [];
  const list = typeof betas === "string" ? betas.split(",") : betas;
  if (!Array.isArray(list) || list.some((b) => typeof b !== "string")) {
    throw new InvalidRequestError("providerOptions.anthropic.betaHeaders must be an array of strings", {
      provider: PROVIDER,
    });
  }
  return {
    betaHeaders: list.map((b: string) => b.trim()).filter((b) => b !== ""),
    autoCache: (autoCache ?? auto_cache) !== false,
    extra,
  };
}

const mediaSource = async (media: ImageData | DocumentData, defaultType: string): Promise<WireBlock> => {
  const resolved = await resolveMedia(media, PROVIDER, defaultType);
  return resolved.kind === "url"
    ? { type: "url", url: resolved.url }
    : { type: "base64", media_type: resolved.mediaType, data: resolved.data };
};

const imageBlock = async (image: ImageData): Promise<WireBlock> => ({
  type: "image",
  source: await mediaSource(image, "image/png"),
});

async function documentBlock(document: DocumentData): Promise<WireBlock> {
  let source = await mediaSource(document, "application/pdf");
  // Plain-text documents travel as text, not base64, in the Messages API.
  if (source.type === "base64" && source.media_type === "text/plain") {
    source = {
      type: "text",
      media_type: "text/plain",
      data: Buffer.from(String(source.data), "base64").toString("utf8"),
    };
  }
  return {
    type: "document",
    source,
    ...(document.fileName !== undefined && { title: document.fileName }),
  };
}

async function toolResultBlock(result: ToolResultData): Promise<WireBlock> {
  const text =
    result.document?.text ??
    (typeof result.content === "string" ? result.content : JSON.stringify(result.content));
  const media = [
    ...(result.document !== undefined ? [await documentBlock(result.document.document)] : []),
    ...(result.image !== undefined ? [await imageBlock(result.image)] : []),
  ];
  const content: string | WireBlock[] =
    media.length === 0 ? text : [...(text === "" ? [] : [{ type: "text", text }]), ...media];
  return { type: "tool_result", tool_use_id: result.toolCallId, content, is_error: result.isError };
}

/** Signatures are bound to the provider that made them; another provider's thinking is dropped. */
const isOurs = (provider: string | undefined): boolean => provider === undefined || provider === PROVIDER;

/** A text block, with its web search citations when they are ours (their encrypted index goes back). */
function textBlock(part: Extract<ContentPart, { kind: "text" }>): WireBlock {
  const citations = (part.citations ?? []).filter((c) => c.provider === PROVIDER && c.raw !== undefined);
  return citations.length > 0
    ? { type: "text", text: part.text, citations: citations.map((c) => c.raw) }
    : { type: "text", text: part.text };
}

async function partToBlock(
  part: ContentPart,
  role: WireMessage["role"],
): Promise<WireBlock | readonly WireBlock[] | undefined> {
  switch (part.kind) {
    case "text":
      // The API rejects empty text blocks.
      return part.text === "" ? undefined : textBlock(part);
    case "web_search": {
      // Our own server_tool_use and web_search_tool_result blocks, verbatim; another provider's
      // search means nothing here (its answer text stays in the history).
      const { provider, raw } = part.webSearch;
      return role === "assistant" && provider === PROVIDER && raw !== undefined
        ? (raw as WireBlock[])
        : undefined;
    }
    case "image":
      // Claude reads images only from the user side of the conversation.
      return role === "user" ? imageBlock(part.image) : undefined;
    case "document":
      return role === "user" ? documentBlock(part.document) : undefined;
    case "audio":
      throw new InvalidRequestError("the Anthropic Messages API does not accept audio input", {
        provider: PROVIDER,
      });
    case "tool_call":
      return {
        type: "tool_use",
        id: part.toolCall.id,
        name: part.toolCall.name,
        input: part.toolCall.arguments,
      };
    case "tool_result":
      return toolResultBlock(part.toolResult);
    case "thinking": {
      const { text, signature, provider } = part.thinking;
      // A thinking block without its signature would be rejected, so it is dropped.
      if (role !== "assistant" || signature === undefined || !isOurs(provider)) return undefined;
      return { type: "thinking", thinking: text, signature };
    }
    case "redacted_thinking":
      return role === "assistant" && isOurs(part.provider)
        ? { type: "redacted_thinking", data: part.data }
        : undefined;
  }
}

const wireRole = (message: Message): WireMessage["role"] =>
  message.role === "assistant" ? "assistant" : "user";

/**
 * One message translated: a system or developer message's blocks, or a user or assistant message's
 * wire message (with no blocks when it has nothing to send). One object per message: a long
 * session keeps thousands.
 */
type Translated = readonly WireBlock[] | WireMessage;

/**
 * Each message translated once: messages are immutable values, and an agent resends its whole
 * history with every request. Blocks and wire messages are shared between requests and never
 * changed (merging, reordering and cache breakpoints make copies), which also lets encodeBody
 * reuse what it encoded for an earlier request.
 */
const translated = new WeakMap<Message, Translated>();

async function translateOne(message: Message): Promise<Translated> {
  const blocks: WireBlock[] = [];
  let entry: Translated;
  if (message.role === "system" || message.role === "developer") {
    for (const part of message.content) {
      if (part.kind === "text" && part.text !== "") blocks.push({ type: "text", text: part.text });
    }
    entry = blocks;
  } else {
    const role = wireRole(message);
    for (const part of message.content) {
      const block = await partToBlock(part, role);
      if (Array.isArray(block)) blocks.push(...block);
      else if (block !== undefined) blocks.push(block as WireBlock);
    }
    // Copied to its length: an array grown by push keeps spare room, and every message is kept.
    entry = { role, content: blocks.slice() };
  }
  translated.set(message, entry);
  return entry;
}

/**
 * Translates the conversation: system and developer text go to `system`, tool messages become
 * user turns of tool_result blocks, and consecutive turns of one role are merged so roles
 * strictly alternate. Within a user turn, tool results come first, as the API requires. The
 * returned messages may be shared with earlier requests: replace them, never change them.
 */
export async function translateMessages(
  messages: readonly Message[],
): Promise<{ system: WireBlock[]; messages: WireMessage[] }> {
  const system: WireBlock[] = [];
  const turns: Message[] = [];
  for (const message of messages) {
    if (message.role !== "system" && message.role !== "developer") {
      turns.push(message);
      continue;
    }
    const entry = (translated.get(message) ?? (await translateOne(message))) as readonly WireBlock[];
    for (const b of entry) system.push(b);
  }
  const key = turns[0];
  const memo = key !== undefined ? conversationMemos.get(key) : undefined;
  // Resume after the longest unchanged run of the last translation of this conversation, at a
  // message that started a wire message of its own (what came before it is then final).
  let start = 0;
  if (memo !== undefined) {
    const limit = Math.min(memo.turns.length, turns.length);
    while (start < limit && memo.turns[start] === turns[start]) start++;
    while (start > 0 && (memo.ends[start] ?? -1) < 0) start--;
  }
  const out: WireMessage[] = memo !== undefined && start > 0 ? memo.out.slice(0, memo.ends[start]) : [];
  const ends: number[] = memo !== undefined && start > 0 ? memo.ends.slice(0, start) : [];
  const firstNew = Math.max(0, out.length - 1);
  // Messages made here for this request, which may be extended in place.
  const own = new Set<WireMessage>();
  for (let i = start; i < turns.length; i++) {
    const message = turns[i] as Message;
    const entry = (translated.get(message) ?? (await translateOne(message))) as WireMessage;
    let last = out.at(-1);
    if (entry.content.length === 0 || last?.role === entry.role) {
      // Merged into the message before (or empty): not a place to resume from.
      ends[i] = -1;
      if (entry.content.length === 0 || last === undefined) continue;
      if (!own.has(last)) {
        last = { role: last.role, content: [...last.content] };
        own.add(last);
        out[out.length - 1] = last;
      }
      for (const b of entry.content) last.content.push(b);
      continue;
    }
    ends[i] = out.length;
    out.push(entry);
  }
  ends[turns.length] = out.length;
  for (let i = firstNew; i < out.length; i++) {
    const m = out[i] as WireMessage;
    if (m.role === "user" && m.content.length > 1 && needsReorder(m.content)) {
      out[i] = {
        role: m.role,
        content: [
          ...m.content.filter((b) => b.type === "tool_result"),
          ...m.content.filter((b) => b.type !== "tool_result"),
        ],
      };
    }
  }
  if (key !== undefined) conversationMemos.set(key, { turns, out: out.slice(), ends });
  return { system, messages: out };
}

/** The last translation of a conversation, found by its first non-system message. */
interface ConversationMemo {
  readonly turns: readonly Message[];
  /** The wire messages as translated (before cache breakpoints, which replace, never change). */
  readonly out: readonly WireMessage[];
  /**
   * ends[i]: the wire messages made from turns [0, i) when turn i started a wire message of its
   * own, so those messages were final before it; -1 where turn i merged into the one before.
   */
  readonly ends: readonly number[];
}

const conversationMemos = new WeakMap<Message, ConversationMemo>();

/** Whether a block other than a tool result comes before a tool result. */
function needsReorder(blocks: readonly WireBlock[]): boolean {
  let other = false;
  for (const b of blocks) {
    if (b.type !== "tool_result") other = true;
    else if (other) return true;
  }
  return false;
}

/** Each tool definition's wire form, made once per definition object (shared like message blocks). */
const toolBlocks = new WeakMap<ToolDefinition, WireBlock>();

function toolBlock(tool: ToolDefinition): WireBlock {
  let block = toolBlocks.get(tool);
  if (block === undefined) {
    block = { name: tool.name, description: tool.description, input_schema: tool.parameters };
    toolBlocks.set(tool, block);
  }
  return block;
}

/** A provider tool's wire definition: web search as `web_search_20250305`. */
function providerToolBlock(tool: ProviderTool): WireBlock {
  const location = tool.userLocation;
  return {
    type: "web_search_20250305",
    name: "web_search",
    ...(tool.maxUses !== undefined && { max_uses: tool.maxUses }),
    ...(tool.allowedDomains !== undefined && { allowed_domains: [...tool.allowedDomains] }),
    ...(tool.blockedDomains !== undefined && { blocked_domains: [...tool.blockedDomains] }),
    ...(location !== undefined && { user_location: { type: "approximate", ...location } }),
  };
}

/** Warnings for the provider tool options the Messages API has no field for. */
export function providerToolWarnings(request: Request): Warning[] {
  return (request.providerTools ?? []).flatMap((t) =>
    t.searchContextSize !== undefined
      ? [{ message: "searchContextSize is OpenAI's; ignored by Anthropic", code: "ignored_option" }]
      : [],
  );
}

const toolChoiceBlock = (choice: ToolChoice): WireBlock | undefined => {
  switch (choice.mode) {
    case "auto":
      return { type: "auto" };
    case "required":
      return { type: "any" };
    case "named":
      return { type: "tool", name: choice.toolName };
    case "none":
      return undefined;
  }
};

/**
 * Whether the last assistant turn used tools without starting with a thinking block (a history
 * from another provider, or from a request with thinking off). With thinking on, the API rejects
 * such a turn, so thinking is left off for this request, as the API documents.
 */
function unthoughtToolTurn(messages: readonly WireMessage[]): boolean {
  let last: WireMessage | undefined;
  for (let i = messages.length - 1; i >= 0 && last === undefined; i--) {
    if (messages[i]?.role === "assistant") last = messages[i];
  }
  if (last === undefined || !last.content.some((b) => b.type === "tool_use")) return false;
  const first = last.content[0]?.type;
  return first !== "thinking" && first !== "redacted_thinking";
}

/** Whether the model rejects temperature and top_p together (Claude 4.5 and later). */
function samplesWithOne(model: string): boolean {
  const m = /^claude-(?:opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d{1,2}))?(?:\b|-)/.exec(model);
  if (m === null) return false;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 5);
}

/** Claude 4 models before 4.6 think between tool calls only with the interleaved-thinking beta. */
const interleaves = (model: string): boolean =>
  /^claude-(opus|sonnet|haiku)-4\b/.test(model) || /^claude-4-/.test(model);

/** Adds beta names to a comma-separated list, keeping order and dropping duplicates. */
const joinBetas = (betas: readonly string[]): string => [...new Set(betas)].join(",");

/**
 * Builds the Messages API body and headers for a request.
 *
 * max_tokens: request.maxTokens, else the model's maximum output (models.ts), else 4096.
 * reasoningEffort turns on extended thinking: adaptive thinking with `output_config.effort` on
 * Claude 4.6 and later (which deprecate or reject budgets), else the THINKING_BUDGETS budget, with
 * max_tokens raised above it (budget + the answer allowance) because thinking counts against it;
 * temperature is dropped and top_p kept only if ≥ 0.95 (API requirements). Thinking is left off
 * when the tool choice forces a tool (required / named), which the API does not allow together.
 */
export async function buildMessagesRequest(request: Request): Promise<MessagesRequest> {
  const options = readOptions(request);
  const { system, messages } = await translateMessages(request.messages);
  const answerTokens = request.maxTokens ?? maxOutputTokens(request.model);
  const body: WireBody = { model: request.model, max_tokens: answerTokens, messages };
  if (system.length > 0) body.system = system;

  const choice = request.toolChoice ?? { mode: "auto" };
  const tools = [
    ...(request.tools ?? []).map(toolBlock),
    ...(request.providerTools ?? []).map(providerToolBlock),
  ];
  if (tools.length > 0 && choice.mode !== "none") {
    body.tools = tools;
    if (request.toolChoice !== undefined) body.tool_choice = toolChoiceBlock(choice);
  }

  const forcesTool = body.tools !== undefined && (choice.mode === "required" || choice.mode === "named");
  const thinking = request.reasoningEffort !== undefined && !forcesTool && !unthoughtToolTurn(messages);
  if (thinking && thinksAdaptively(request.model)) {
    body.thinking = { type: "adaptive" };
    body.output_config = { effort: ADAPTIVE_EFFORTS[request.reasoningEffort!] };
  } else if (thinking) {
    const budget = Math.max(MIN_THINKING_BUDGET, THINKING_BUDGETS[request.reasoningEffort!]);
    if (body.max_tokens <= budget) body.max_tokens = budget + answerTokens;
    body.thinking = { type: "enabled", budget_tokens: budget };
  }
  if (request.temperature !== undefined && !thinking) body.temperature = request.temperature;
  // Claude 4.5 and later take temperature or top_p, not both; temperature is the one kept.
  const oneSampler = samplesWithOne(request.model) && body.temperature !== undefined;
  if (request.topP !== undefined && (!thinking || request.topP >= 0.95) && !oneSampler)
    body.top_p = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    body.stop_sequences = [...request.stopSequences];
  }
  const userId = request.metadata?.user_id ?? request.metadata?.userId;
  if (userId !== undefined) body.metadata = { user_id: userId };

  Object.assign(body, options.extra);
  // Breakpoints replace blocks in these lists: a caller's own lists are copied, never changed.
  if (Array.isArray(options.extra.system)) body.system = [...(options.extra.system as WireBlock[])];
  if (Array.isArray(options.extra.tools)) body.tools = [...(options.extra.tools as WireBlock[])];
  if (Array.isArray(options.extra.messages)) {
    body.messages = (options.extra.messages as WireMessage[]).map((m) => ({
      ...m,
      content: Array.isArray(m.content) ? [...m.content] : m.content,
    }));
  }
  // Translated blocks never carry markers: only lists from provider options can hold some.
  if (options.autoCache) {
    const preset =
      options.extra.system !== undefined ||
      options.extra.tools !== undefined ||
      options.extra.messages !== undefined
        ? countCacheBreakpoints(body)
        : 0;
    applyCacheBreakpoints(body, preset);
  }

  const betas = [...options.betaHeaders];
  // Prompt caching is generally available: its old beta header is deprecated and not sent.
  if (
    body.thinking !== undefined &&
    (body.thinking as WireBlock).type === "enabled" &&
    interleaves(request.model)
  )
    betas.push(INTERLEAVED_THINKING_BETA);
  const headers: Record<string, string> = betas.length > 0 ? { "anthropic-beta": joinBetas(betas) } : {};
  return { body, headers };
}
