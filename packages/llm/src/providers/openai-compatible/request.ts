import type { ContentPart, Message, Request, ToolChoice, Warning } from "../../types/index.js";
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
    else if (part.kind === "image") {
      const media = await resolveMedia(part.image, PROVIDER);
      content.push({
        type: "image_url",
        image_url: {
          url: media.kind === "url" ? media.url : toDataUrl(media),
          ...(part.image.detail !== undefined && { detail: part.image.detail }),
        },
      });
    } else if (part.kind === "audio" || part.kind === "document") {
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
  const reasoning = message.content.flatMap((p) => (p.kind === "thinking" ? [p.thinking.text] : [])).join("");
  return {
    role: "assistant",
    content: text === "" && calls.length > 0 ? null : text,
    ...(calls.length > 0 && { tool_calls: calls }),
    ...(sendReasoning && reasoning !== "" && { reasoning_content: reasoning }),
  };
}

async function toolMessages(parts: readonly ContentPart[], out: Json[]): Promise<void> {
  for (const part of parts) {
    if (part.kind !== "tool_result") continue;
    const result = part.toolResult;
    out.push({ role: "tool", tool_call_id: result.toolCallId, content: toolOutputText(result) });
    if (result.image !== undefined) {
      const media = await resolveMedia(result.image, PROVIDER);
      out.push({
        role: "user",
        content: [
          { type: "text", text: `Image returned by tool call ${result.toolCallId}:` },
          { type: "image_url", image_url: { url: media.kind === "url" ? media.url : toDataUrl(media) } },
        ],
      });
    }
  }
}

function toolChoice(choice: ToolChoice): unknown {
  return choice.mode === "named" ? { type: "function", function: { name: choice.toolName } } : choice.mode;
}

/**
 * Translates a Request into a `/v1/chat/completions` body. System and developer messages keep
 * their place as `system` messages; thinking goes back as `reasoning_content` on assistant
 * messages unless `providerOptions["openai-compatible"].sendReasoning` is false.
 */
export async function buildChatBody(request: Request, stream: boolean): Promise<ChatBody> {
  const warnings: Warning[] = [];
  const { sendReasoning, ...passThrough } = request.providerOptions?.[PROVIDER] ?? {};
  const messages: Json[] = [];
  for (const message of request.messages) {
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
        await toolMessages(message.content, messages);
        break;
      }
      case "assistant":
        messages.push(assistantMessage(message, sendReasoning !== false));
        break;
      case "tool":
        await toolMessages(message.content, messages);
        break;
    }
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
