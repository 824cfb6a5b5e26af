import { getModelInfo } from "../../catalog/index.js";
import { InvalidRequestError } from "../../errors.js";
import type {
  Citation,
  ContentPart,
  DocumentData,
  ImageData,
  Message,
  OutputItemRef,
  ProviderTool,
  Request,
  ResponseFormat,
  ToolChoice,
  ToolResultData,
  Warning,
} from "../../types/index.js";
import { resolveMedia, toDataUrl } from "../shared/media.js";
import { strictFor } from "../shared/strict-schema.js";

const PROVIDER = "openai";

type Item = Record<string, unknown>;

/** A Responses API request body, with what had to be dropped on the way. */
export interface ResponsesBody {
  readonly body: Record<string, unknown>;
  readonly warnings: readonly Warning[];
}

/** The image as an `input_image` content item (URL, or data URL for bytes and local files). */
export async function inputImage(image: ImageData, provider = PROVIDER): Promise<Item> {
  const media = await resolveMedia(image, provider);
  return {
    type: "input_image",
    image_url: media.kind === "url" ? media.url : toDataUrl(media),
    detail: image.detail ?? "auto",
  };
}

/** The document as an `input_file` content item (URL, or its bytes as a data URL). */
async function inputFile(document: DocumentData): Promise<Item> {
  const media = await resolveMedia(document, PROVIDER, "application/pdf");
  return media.kind === "url"
    ? { type: "input_file", file_url: media.url }
    : { type: "input_file", filename: document.fileName ?? "document.pdf", file_data: toDataUrl(media) };
}

/** A tool result's content as the text the model reads; failures are marked as such. */
export function toolOutputText(result: ToolResultData): string {
  const text = typeof result.content === "string" ? result.content : JSON.stringify(result.content);
  return result.isError ? `Error: ${text}` : text;
}

async function userContent(parts: readonly ContentPart[], warnings: Warning[]): Promise<Item[]> {
  const content: Item[] = [];
  for (const part of parts) {
    switch (part.kind) {
      case "text":
        content.push({ type: "input_text", text: part.text });
        break;
      case "image":
        content.push(await inputImage(part.image));
        break;
      case "document":
        content.push(await inputFile(part.document));
        break;
      case "audio":
        warnings.push({
          message: "audio input is not supported by the Responses API; dropped",
          code: "dropped_audio",
        });
        break;
      default:
        break;
    }
  }
  return content;
}

/**
 * Appends an assistant message's parts as input items, in order, so reasoning precedes its calls.
 * Text from one of our own output messages goes back as that output message (id, status and the
 * phase the model gave it, which newer models need); other text as a plain assistant message.
 */
function assistantItems(message: Message, input: Item[]): void {
  let text: Item[] = [];
  let item: OutputItemRef | undefined;
  const flush = () => {
    if (text.length === 0) return;
    if (item !== undefined) {
      input.push({
        type: "message",
        role: "assistant",
        id: item.id,
        status: "completed",
        content: text,
        ...(item.phase !== undefined && { phase: item.phase }),
      });
    } else {
      input.push({ type: "message", role: "assistant", content: text.map((t) => t.text).join("") });
    }
    text = [];
    item = undefined;
  };
  for (const part of message.content) {
    if (part.kind === "text") {
      if (part.text === "") continue;
      const own = part.item?.provider === PROVIDER ? part.item : undefined;
      if (text.length > 0 && own?.id !== item?.id) flush();
      item = own;
      // OpenAI's specification requires logprobs on output text; none were asked for, so none.
      const annotations = own !== undefined ? ownAnnotations(part.citations) : [];
      text.push({ type: "output_text", text: part.text, annotations, logprobs: [] });
    } else if (part.kind === "web_search") {
      // Our own web_search_call items go back as they came; another provider's mean nothing here.
      const { provider, raw } = part.webSearch;
      if (provider !== PROVIDER || raw === undefined) continue;
      flush();
      for (const item of raw) input.push(item as Item);
    } else if (part.kind === "tool_call") {
      flush();
      const call = part.toolCall;
      input.push({
        type: "function_call",
        call_id: call.id,
        name: call.name,
        arguments: call.rawArguments ?? JSON.stringify(call.arguments),
      });
    } else if (part.kind === "thinking") {
      const t = part.thinking;
      // Only our own reasoning items can be replayed: they need the item id and encrypted content.
      if (t.provider !== PROVIDER || t.id === undefined || t.signature === undefined) continue;
      flush();
      input.push({
        type: "reasoning",
        id: t.id,
        encrypted_content: t.signature,
        summary: t.text === "" ? [] : [{ type: "summary_text", text: t.text }],
      });
    }
  }
  flush();
}

/** The url_citation annotations of our own output text, as the API sent them. */
const ownAnnotations = (citations: readonly Citation[] | undefined): unknown[] =>
  (citations ?? []).flatMap((c) => (c.provider === PROVIDER && c.raw !== undefined ? [c.raw] : []));

/**
 * The Responses API's web search tool. Blocked domains have no field here, so a request with
 * some fails rather than search them; a use limit is a warning.
 */
function providerToolItem(tool: ProviderTool, warnings: Warning[]): Item {
  if (tool.blockedDomains !== undefined && tool.blockedDomains.length > 0) {
    throw new InvalidRequestError("the Responses API web_search tool cannot block domains (blockedDomains)", {
      provider: PROVIDER,
    });
  }
  if (tool.maxUses !== undefined) {
    warnings.push({
      message: "the Responses API web_search tool has no use limit; maxUses ignored",
      code: "ignored_option",
    });
  }
  const location = tool.userLocation;
  return {
    type: "web_search",
    ...(tool.searchContextSize !== undefined && { search_context_size: tool.searchContextSize }),
    ...(location !== undefined && { user_location: { type: "approximate", ...location } }),
    ...(tool.allowedDomains !== undefined && { filters: { allowed_domains: [...tool.allowedDomains] } }),
  };
}

/**
 * A tool result as a function_call_output item. An image the tool produced goes inside the
 * output's content list, so the outputs of parallel calls stay together.
 */
async function toolResultItems(result: ToolResultData, input: Item[]): Promise<void> {
  const document = result.document;
  const text =
    document !== undefined ? toolOutputText({ ...result, content: document.text }) : toolOutputText(result);
  const media = [
    ...(document !== undefined ? [await inputFile(document.document)] : []),
    ...(result.image !== undefined ? [await inputImage(result.image)] : []),
  ];
  const output: string | Item[] =
    media.length === 0 ? text : [...(text === "" ? [] : [{ type: "input_text", text }]), ...media];
  input.push({ type: "function_call_output", call_id: result.toolCallId, output });
}

/** The text of a format, or undefined for plain text. */
export function textFormat(format: ResponseFormat | undefined): Item | undefined {
  if (format === undefined || format.type === "text") return undefined;
  if (format.type === "json") return { type: "json_object" };
  return {
    type: "json_schema",
    name: format.name ?? "response",
    schema: format.schema,
    strict: strictFor(format.schema, format.strict),
  };
}

/** Whether the model reasons: the catalog's word when it knows it, else the o-series and GPT-5 family. */
function reasons(model: string): boolean {
  const info = getModelInfo(model);
  if (info !== undefined) return info.supportsReasoning === true;
  return /^(o\d|gpt-([5-9]|\d{2})|codex)/.test(model) && !/-chat/.test(model);
}

function toolChoice(choice: ToolChoice): unknown {
  return choice.mode === "named" ? { type: "function", name: choice.toolName } : choice.mode;
}

/**
 * Translates a Request into a `/v1/responses` body. System messages become `instructions`;
 * developer messages stay in place as `developer` input items so their position in the
 * conversation is kept. Reasoning runs statelessly (`store: false`, encrypted content included)
 * so that it round-trips through the message history.
 */
export async function buildResponsesBody(request: Request): Promise<ResponsesBody> {
  const warnings: Warning[] = [];
  const instructions: string[] = [];
  const input: Item[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case "system":
        instructions.push(message.content.map((p) => (p.kind === "text" ? p.text : "")).join(""));
        break;
      case "developer":
        input.push({
          type: "message",
          role: "developer",
          content: await userContent(message.content, warnings),
        });
        break;
      case "user": {
        // Results answer the calls just before them, so they come ahead of the user's own content.
        for (const part of message.content) {
          if (part.kind === "tool_result") await toolResultItems(part.toolResult, input);
        }
        const content = await userContent(message.content, warnings);
        if (content.length > 0) input.push({ type: "message", role: "user", content });
        break;
      }
      case "assistant":
        assistantItems(message, input);
        break;
      case "tool":
        for (const part of message.content) {
          if (part.kind === "tool_result") await toolResultItems(part.toolResult, input);
        }
        break;
      default:
        throw new InvalidRequestError(`unknown message role: ${String(message.role)}`, {
          provider: PROVIDER,
        });
    }
  }

  const body: Record<string, unknown> = { model: request.model, input, store: false };
  if (instructions.length > 0) body.instructions = instructions.join("\n\n");
  const tools: Item[] = [
    ...(request.tools ?? []).map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    })),
    ...(request.providerTools ?? []).map((t) => providerToolItem(t, warnings)),
  ];
  if (tools.length > 0) {
    body.tools = tools;
    body.tool_choice = toolChoice(request.toolChoice ?? { mode: "auto" });
  } else if (request.toolChoice !== undefined && request.toolChoice.mode !== "auto") {
    warnings.push({ message: "toolChoice without tools was ignored", code: "ignored_tool_choice" });
  }
  const format = textFormat(request.responseFormat);
  if (format !== undefined) body.text = { format };
  if (request.reasoningEffort !== undefined) {
    body.reasoning = { effort: request.reasoningEffort, summary: "auto" };
  }
  // Without storage the only way reasoning survives a tool round is its encrypted content, sent
  // back in the next request; a reasoning model reasons at its default effort too.
  const options = request.providerOptions?.[PROVIDER];
  const include: string[] = [];
  if (options?.store !== true && (request.reasoningEffort !== undefined || reasons(request.model))) {
    include.push("reasoning.encrypted_content");
  }
  // The pages a search read, which the answer's citations cover only in part.
  if ((request.providerTools ?? []).length > 0) include.push("web_search_call.action.sources");
  if (include.length > 0) body.include = include;
  if (request.cacheKey !== undefined) body.prompt_cache_key = request.cacheKey;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (request.metadata !== undefined) body.metadata = { ...request.metadata };
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    warnings.push({ message: "the Responses API has no stop sequences; ignored", code: "ignored_stop" });
  }
  Object.assign(body, options);
  return { body, warnings };
}
