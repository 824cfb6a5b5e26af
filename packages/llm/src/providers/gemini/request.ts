import type {
  Content,
  FunctionCallingConfigMode,
  GenerateContentConfig,
  Part,
  ThinkingConfig,
  ThinkingLevel,
} from "@google/genai";
import { InvalidRequestError } from "../../errors.js";
import type {
  ContentPart,
  MediaData,
  Message,
  ReasoningEffort,
  Request,
  ToolChoice,
  ToolResultData,
  Warning,
} from "../../types/index.js";
import { mimeFromPath, resolveMedia } from "../shared/media.js";

export const PROVIDER = "gemini";

/** What the SDK's generateContent needs, minus transport settings (signal, fetch). */
export interface GeminiCall {
  readonly model: string;
  readonly contents: Content[];
  readonly config: GenerateContentConfig;
}

/** Ids we synthesize for calls the API gave none; they must not be sent back as if they were Gemini's. */
const SYNTHETIC_ID = /^call_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether a tool-call id is one the adapter made up (Gemini models before 3 send no ids). */
export const isSyntheticCallId = (id: string): boolean => SYNTHETIC_ID.test(id);

const isGemini3 = (model: string): boolean => Number(/gemini-(\d+)/i.exec(model)?.[1] ?? 0) >= 3;

/** Models that think by default, so thought summaries are worth asking for. */
const thinksByDefault = (model: string): boolean => /gemini-(2\.5|[3-9]|\d{2,})/i.test(model);

const LEVELS: Readonly<Record<ReasoningEffort, "MINIMAL" | "LOW" | "MEDIUM" | "HIGH">> = {
  minimal: "MINIMAL",
  low: "LOW",
  medium: "MEDIUM",
  high: "HIGH",
  xhigh: "HIGH",
};

const BUDGETS: Readonly<Record<ReasoningEffort, number>> = {
  minimal: 0,
  low: 1024,
  medium: 8192,
  high: 24_576,
  xhigh: 32_768,
};

/**
 * Maps reasoningEffort to thinkingConfig. Gemini 3 takes a thinking level (Pro knows only LOW and
 * HIGH, so minimal → LOW and medium → HIGH there); Gemini 2.5 takes a token budget (Pro cannot
 * switch thinking off, so minimal → 128; Flash caps at 24 576). Thought summaries are always asked for.
 */
export function thinkingConfigFor(
  model: string,
  effort: ReasoningEffort | undefined,
): ThinkingConfig | undefined {
  if (effort === undefined) return thinksByDefault(model) ? { includeThoughts: true } : undefined;
  const pro = /pro/i.test(model);
  if (isGemini3(model)) {
    let level = LEVELS[effort];
    if (pro && level === "MINIMAL") level = "LOW";
    if (pro && level === "MEDIUM" && !/gemini-3\.[1-9]/i.test(model)) level = "HIGH";
    return { includeThoughts: true, thinkingLevel: level as ThinkingLevel };
  }
  let budget = BUDGETS[effort];
  if (pro && budget === 0) budget = 128;
  if (!pro && budget > 24_576) budget = 24_576;
  return { includeThoughts: budget > 0, thinkingBudget: budget };
}

function toolConfigFor(choice: ToolChoice): GenerateContentConfig["toolConfig"] {
  const mode = (m: string) => m as FunctionCallingConfigMode;
  switch (choice.mode) {
    case "auto":
      return { functionCallingConfig: { mode: mode("AUTO") } };
    case "none":
      return { functionCallingConfig: { mode: mode("NONE") } };
    case "required":
      return { functionCallingConfig: { mode: mode("ANY") } };
    case "named":
      return { functionCallingConfig: { mode: mode("ANY"), allowedFunctionNames: [choice.toolName] } };
  }
}

async function mediaPart(media: MediaData, defaultType: string): Promise<Part> {
  const resolved = await resolveMedia(media, PROVIDER, defaultType);
  if (resolved.kind === "base64")
    return { inlineData: { mimeType: resolved.mediaType, data: resolved.data } };
  const mimeType = resolved.mediaType ?? mimeFromPath(new URL(resolved.url).pathname) ?? defaultType;
  return { fileData: { fileUri: resolved.url, mimeType } };
}

function functionResponse(result: ToolResultData): Record<string, unknown> {
  const { isError } = result;
  const content = result.document?.text ?? result.content;
  if (isError) return { error: typeof content === "string" ? content : JSON.stringify(content) };
  if (typeof content === "string") return { result: content };
  if (Array.isArray(content)) return { result: content };
  return content as Record<string, unknown>;
}

function textOf(message: Message): string {
  return message.content.flatMap((p) => (p.kind === "text" ? [p.text] : [])).join("");
}

async function userParts(content: readonly ContentPart[]): Promise<Part[]> {
  const parts: Part[] = [];
  for (const p of content) {
    if (p.kind === "text") parts.push({ text: p.text });
    else if (p.kind === "image") parts.push(await mediaPart(p.image, "image/png"));
    else if (p.kind === "audio") parts.push(await mediaPart(p.audio, "audio/wav"));
    else if (p.kind === "document") parts.push(await mediaPart(p.document, "application/pdf"));
  }
  return parts;
}

/**
 * The signature Gemini documents for function calls it did not sign (history from another model or
 * provider): Gemini 3 rejects a turn whose first function call has no thought signature.
 */
export const DUMMY_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

function assistantParts(content: readonly ContentPart[], model: string): Part[] {
  const parts: Part[] = [];
  let firstCall = true;
  for (const p of content) {
    if (p.kind === "text") {
      if (p.thoughtSignature !== undefined)
        parts.push({ text: p.text, thoughtSignature: p.thoughtSignature });
      else if (p.text !== "") parts.push({ text: p.text });
    } else if (p.kind === "thinking") {
      // Only Gemini's own thoughts go back; another provider's reasoning means nothing to it.
      if (p.thinking.provider !== PROVIDER) continue;
      parts.push({
        text: p.thinking.text,
        thought: true,
        ...(p.thinking.signature !== undefined && { thoughtSignature: p.thinking.signature }),
      });
    } else if (p.kind === "tool_call") {
      const call = p.toolCall;
      const signature =
        call.thoughtSignature ?? (firstCall && isGemini3(model) ? DUMMY_THOUGHT_SIGNATURE : undefined);
      firstCall = false;
      parts.push({
        functionCall: {
          name: call.name,
          args: { ...call.arguments },
          ...(!isSyntheticCallId(call.id) && { id: call.id }),
        },
        ...(signature !== undefined && { thoughtSignature: signature }),
      });
    }
  }
  return parts;
}

/**
 * The function responses of a tool message, in order, and the images and documents they
 * returned. Gemini 3 takes inline media inside its functionResponse (`parts`), next to the result
 * it belongs to; earlier models, and media given by URL, get it as a part after all the responses.
 */
async function toolResultParts(
  message: Message,
  names: ReadonlyMap<string, string>,
  model: string,
): Promise<Part[]> {
  const parts: Part[] = [];
  const images: Part[] = [];
  for (const p of message.content) {
    if (p.kind !== "tool_result") continue;
    const result = p.toolResult;
    const name = result.name ?? names.get(result.toolCallId);
    if (name === undefined) {
      throw new InvalidRequestError(
        `tool result for call ${result.toolCallId} has no name and no earlier tool call with that id`,
        { provider: PROVIDER },
      );
    }
    const media = [
      ...(result.document !== undefined
        ? [await mediaPart(result.document.document, "application/pdf")]
        : []),
      ...(result.image !== undefined ? [await mediaPart(result.image, "image/png")] : []),
    ];
    // Gemini 3 takes inline images and PDFs inside the function response; the rest go after.
    const nested = isGemini3(model) ? media.filter((m) => m.inlineData !== undefined) : [];
    parts.push({
      functionResponse: {
        name,
        response: functionResponse(result),
        ...(!isSyntheticCallId(result.toolCallId) && { id: result.toolCallId }),
        ...(nested.length > 0 && { parts: nested.map((m) => ({ inlineData: m.inlineData })) }),
      },
    });
    for (const m of media) if (!nested.includes(m)) images.push(m);
  }
  return [...parts, ...images];
}

/**
 * Merges consecutive turns of one role (Gemini wants user and model to alternate) and, in each
 * user turn, puts the function responses first, in call order, and everything else after them:
 * the responses of one batch of parallel calls must be together in one turn.
 */
function alternate(contents: readonly Content[]): Content[] {
  const out: Content[] = [];
  for (const content of contents) {
    const last = out.at(-1);
    if (last !== undefined && last.role === content.role) {
      last.parts = [...(last.parts ?? []), ...(content.parts ?? [])];
    } else {
      out.push({ role: content.role, parts: [...(content.parts ?? [])] });
    }
  }
  for (const content of out) {
    if (content.role !== "user") continue;
    const parts = content.parts ?? [];
    content.parts = [
      ...parts.filter((p) => p.functionResponse !== undefined),
      ...parts.filter((p) => p.functionResponse === undefined),
    ];
  }
  return out;
}

/**
 * Google Search grounding. The Gemini API has no domain filters, so a request restricted to or
 * away from some domains fails rather than search everywhere.
 */
function providerTools(request: Request): NonNullable<GenerateContentConfig["tools"]> {
  return (request.providerTools ?? []).map((tool) => {
    if ((tool.allowedDomains?.length ?? 0) > 0 || (tool.blockedDomains?.length ?? 0) > 0) {
      throw new InvalidRequestError("Gemini's Google Search grounding cannot restrict domains", {
        provider: PROVIDER,
      });
    }
    return { googleSearch: {} };
  });
}

/** Warnings for the web search options Google Search grounding has no setting for. */
export function providerToolWarnings(request: Request): Warning[] {
  const ignored = (request.providerTools ?? []).flatMap((t) => [
    ...(t.maxUses !== undefined ? ["maxUses"] : []),
    ...(t.userLocation !== undefined ? ["userLocation"] : []),
    ...(t.searchContextSize !== undefined ? ["searchContextSize"] : []),
  ]);
  return ignored.length === 0
    ? []
    : [{ message: `Google Search grounding has no ${ignored.join(", ")}; ignored`, code: "ignored_option" }];
}

/** Translates a unified request into the SDK's generateContent parameters. */
export async function toGeminiCall(request: Request): Promise<GeminiCall> {
  const names = new Map<string, string>();
  for (const m of request.messages) {
    for (const p of m.content) if (p.kind === "tool_call") names.set(p.toolCall.id, p.toolCall.name);
  }
  const system: string[] = [];
  const contents: Content[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOf(message);
        if (text !== "") system.push(text);
        break;
      }
      case "user": {
        // A user message may also carry tool results (some hosts put them there).
        const parts = [
          ...(await toolResultParts(message, names, request.model)),
          ...(await userParts(message.content)),
        ];
        if (parts.length > 0) contents.push({ role: "user", parts });
        break;
      }
      case "assistant": {
        const parts = assistantParts(message.content, request.model);
        if (parts.length > 0) contents.push({ role: "model", parts });
        break;
      }
      case "tool": {
        const parts = await toolResultParts(message, names, request.model);
        if (parts.length > 0) contents.push({ role: "user", parts });
        break;
      }
    }
  }

  const config: GenerateContentConfig = {};
  if (system.length > 0) config.systemInstruction = { parts: [{ text: system.join("\n\n") }] };
  if (request.tools !== undefined && request.tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: request.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parametersJsonSchema: t.parameters,
        })),
      },
    ];
    config.toolConfig = toolConfigFor(request.toolChoice ?? { mode: "auto" });
  }
  const grounding = providerTools(request);
  if (grounding.length > 0) config.tools = [...(config.tools ?? []), ...grounding];
  const format = request.responseFormat;
  if (format?.type === "json") config.responseMimeType = "application/json";
  if (format?.type === "json_schema") {
    config.responseMimeType = "application/json";
    config.responseJsonSchema = format.schema;
  }
  const thinking = thinkingConfigFor(request.model, request.reasoningEffort);
  if (thinking !== undefined) config.thinkingConfig = thinking;
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    config.stopSequences = [...request.stopSequences];
  }
  const extra = request.providerOptions?.[PROVIDER];
  return {
    model: request.model,
    contents: alternate(contents),
    config: { ...config, ...(extra as GenerateContentConfig) },
  };
}
