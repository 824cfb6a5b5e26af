import type { ImageData } from "@attractor/llm";
import type { ToolDetails, ToolOutput } from "../types/tool.js";

/** One content block of a tool result or a prompt message, as the protocol defines it. */
export type McpContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string }
  | { readonly type: "audio"; readonly data: string; readonly mimeType: string }
  | {
      readonly type: "resource_link";
      readonly uri: string;
      readonly name?: string;
      readonly description?: string;
      readonly mimeType?: string;
    }
  | { readonly type: "resource"; readonly resource: McpResourceContents }
  | { readonly type: string; readonly [key: string]: unknown };

/** The contents of a resource: text, or base64 data. */
export interface McpResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  readonly blob?: string;
}

/** A `tools/call` result. */
export interface McpCallResult {
  readonly content?: readonly McpContent[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
  /** Servers speaking protocol 2024-10-07 answer with this instead. */
  readonly toolResult?: unknown;
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/;

/** Approximate decoded size of base64 text. */
function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, "").length * 3) / 4);
}

/** Text and at most one image from content blocks; later images are described, not sent. */
export function contentToText(content: readonly McpContent[]): { text: string; image?: ImageData } {
  const parts: string[] = [];
  let image: ImageData | undefined;
  const addImage = (data: string, mimeType: string, label: string) => {
    if (image === undefined && IMAGE_TYPES.test(mimeType)) {
      image = { data, mediaType: mimeType };
      parts.push(`[${label}: ${mimeType}, ${base64Bytes(data)} bytes, attached]`);
    } else {
      parts.push(`[${label}: ${mimeType}, ${base64Bytes(data)} bytes, not shown]`);
    }
  };
  for (const block of content) {
    switch (block.type) {
      case "text":
        parts.push(String((block as { text: unknown }).text ?? ""));
        break;
      case "image": {
        const b = block as { data: string; mimeType: string };
        addImage(b.data, b.mimeType, "image");
        break;
      }
      case "audio": {
        const b = block as { data: string; mimeType: string };
        parts.push(`[audio: ${b.mimeType}, ${base64Bytes(b.data)} bytes, not shown]`);
        break;
      }
      case "resource_link": {
        const b = block as Extract<McpContent, { type: "resource_link" }>;
        const about = [b.name, b.mimeType, b.description].filter(Boolean).join(", ");
        parts.push(`[resource link: ${b.uri}${about ? ` (${about})` : ""}]`);
        break;
      }
      case "resource": {
        const r = (block as { resource: McpResourceContents }).resource;
        if (typeof r.text === "string") parts.push(`[resource: ${r.uri}]\n${r.text}`);
        else if (typeof r.blob === "string")
          addImage(r.blob, r.mimeType ?? "application/octet-stream", `resource ${r.uri}`);
        else parts.push(`[resource: ${r.uri}]`);
        break;
      }
      default:
        parts.push(`[${block.type} content, not shown]`);
    }
  }
  return image === undefined ? { text: parts.join("\n") } : { text: parts.join("\n"), image };
}

/**
 * A tool's result as the agent passes it on: text blocks joined, the first image attached for
 * multimodal models, embedded resources inlined, structuredContent as JSON when the server sent
 * no content (and in details always), isError as an error result.
 */
export function callResultToOutput(result: McpCallResult): ToolOutput {
  if (result.content === undefined && result.toolResult !== undefined) {
    return { output: JSON.stringify(result.toolResult, null, 2), isError: result.isError === true };
  }
  const { text, image } = contentToText(result.content ?? []);
  let output = text;
  if (output.trim() === "" && result.structuredContent !== undefined)
    output = JSON.stringify(result.structuredContent, null, 2);
  if (output.trim() === "") output = result.isError ? "The tool failed without a message." : "(no output)";
  const details: ToolDetails | undefined =
    result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : undefined;
  return {
    output,
    isError: result.isError === true,
    ...(image !== undefined && { image }),
    ...(details !== undefined && { details }),
  };
}
