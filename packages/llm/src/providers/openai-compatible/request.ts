import { InvalidRequestError } from "../../errors.js";
import type { ContentPart, ImageData, Message, Request, ToolChoice, Warning } from "../../types/index.js";
import { textFormat, toolOutputText } from "../openai/request.js";
import { resolveMedia, toDataUrl } from "../shared/media.js";

export const PROVIDER = "openai-compatible";

type Json = Record<string, unknown>;

/** A Chat Completions request body, with what had to be dropped on the way. */
export interface ChatBody {
  readonly body: Json;
  readonly warnings: readonly Warning[];
}

const textOf = (parts: readonly ContentPart[]): string =>
  parts.map((p) => (p.kind === "text" ? p.text : "")).join("");

async function userContent(parts: readonly ContentPart[], warnings: Warning[]): Promise<string | Json[]> {
  // Plain strings are what every server accepts; parts only when there is more than text.
  if (parts.every((p) => p.kind === "text" || p.kind === "tool_result")) return textOf(parts);
  const content: Json[] = [];
  for (const part of parts) {
    if (part.kind === "text") content.push({ type: "text", text: part.text });
    else if (part.kind === "image") content.push(await imageUrlPart(part.image));
    else if (part.kind === "audio" || part.kind === "document") {
      warnings.push({ message: `${part.kind} input is not sent to OpenAI-compatible servers; dropped` });
    }
  }
  return content;
}

function assistantMessage(message: Message, sendReasoning: boolean): Json {
  const text = textOf(message.content);
  const calls = message.content.flatMap((p) =>
    p.kind === "tool_call"
      ? [
          {
            id: p.toolCall.id,
            type: "function",
            function: {
              name: p.toolCall.name,
              arguments: p.toolCall.rawArguments ?? JSON.stringify(p.toolCall.arguments),
            },
          },
        ]
      : [],
  );
  const thinking = message.content.flatMap((p) => (p.kind === "thinking" ? [p.thinking] : []));
  const reasoning = thinking.map((t) => t.text).join("");
  // Streamed details accumulate, so the last part that has them has them all.
  const details =
    [...thinking].reverse().find((t) => t.provider === PROVIDER && t.details !== undefined)?.details ?? [];
  return {
    role: "assistant",
    content: text === "" && calls.length > 0 ? null : text,
    ...(calls.length > 0 && { tool_calls: calls }),
    ...(sendReasoning && reasoning !== "" && { reasoning_content: reasoning }),
    // OpenRouter asks for its reasoning_details back unmodified, so they go whenever we have them.
    ...(details.length > 0 && { reasoning_details: details }),
  };
}

async function imageUrlPart(image: ImageData): Promise<Json> {
  const media = await resolveMedia(image, PROVIDER);
  return {
    type: "image_url",
    image_url: {
      url: media.kind === "url" ? media.url : toDataUrl(media),
      ...(image.detail !== undefined && { detail: image.detail }),
    },
  };
}

/**
 * Appends one `tool` message per result. Images cannot go in a tool message, and every call id
 * must be answered by the tool messages right after the assistant message, so images are
 * collected in `images` and sent together in one user message after the last result.
 */
async function toolMessages(parts: readonly ContentPart[], out: Json[], images: Json[]): Promise<void> {
  for (const part of parts) {
    if (part.kind !== "tool_result") continue;
    const result = part.toolResult;
    out.push({ role: "tool", tool_call_id: result.toolCallId, content: toolOutputText(result) });
    if (result.image !== undefined) {
      images.push(
        { type: "text", text: `Image returned by tool call ${result.toolCallId}:` },
        await imageUrlPart(result.image),
      );
    }
  }
}

/** Sends the images collected from a batch of tool results as one user message. */
function flushImages(images: Json[], out: Json[]): void {
  if (images.length === 0) return;
  out.push({ role: "user", content: images.splice(0) });
}

function toolChoice(choice: ToolChoice): unknown {
  return choice.mode === "named" ? { type: "function", function: { name: choice.toolName } } : choice.mode;
}

/**
 * Translates a Request into a `/v1/chat/completions` body. System and developer messages keep
 * their place as `system` messages. Thinking goes back as `reasoning_content` on assistant
 * messages only when `providerOptions["openai-compatible"].sendReasoning` is true (servers such
 * as DeepSeek's or vLLM's reasoning parsers that want it; strict servers reject the field);
 * OpenRouter's `reasoning_details` always go back as they came.
 */
export async function buildChatBody(
  request: Request,
  stream: boolean,
  sendReasoningByDefault = false,
): Promise<ChatBody> {
  const warnings: Warning[] = [];
  const { sendReasoning, ...passThrough } = request.providerOptions?.[PROVIDER] ?? {};
  const messages: Json[] = [];
  const images: Json[] = [];
  for (const message of request.messages) {
    if (message.role === "tool") {
      await toolMessages(message.content, messages, images);
      continue;
    }
    // Results answer the calls before them, so a user message's own results come first.
    if (message.role === "user") await toolMessages(message.content, messages, images);
    flushImages(images, messages);
    switch (message.role) {
      case "system":
      case "developer":
        messages.push({ role: "system", content: textOf(message.content) });
        break;
      case "user": {
        const content = await userContent(message.content, warnings);
        if (content !== "" && !(Array.isArray(content) && content.length === 0)) {
          messages.push({ role: "user", content, ...(message.name !== undefined && { name: message.name }) });
        }
        break;
      }
      case "assistant":
        messages.push(assistantMessage(message, (sendReasoning ?? sendReasoningByDefault) === true));
        break;
    }
  }
  flushImages(images, messages);
  // Chat Completions servers run no tools of their own: answering without the search asked for
  // would pass the model's guess off as a search result.
  if ((request.providerTools ?? []).length > 0) {
    throw new InvalidRequestError(
      `OpenAI-compatible servers have no provider tools (${(request.providerTools ?? []).map((t) => t.kind).join(", ")})`,
      { provider: PROVIDER },
    );
  }
  const body: Json = { model: request.model, messages };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    body.tool_choice = toolChoice(request.toolChoice ?? { mode: "auto" });
  }
  const format = textFormat(request.responseFormat);
  if (format !== undefined) {
    body.response_format =
      format.type === "json_schema"
        ? {
            type: "json_schema",
            json_schema: { name: format.name, schema: format.schema, strict: format.strict },
          }
        : format;
  }
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    body.stop = [...request.stopSequences];
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  Object.assign(body, passThrough);
  return { body, warnings };
}
