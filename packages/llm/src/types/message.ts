import type { ContentPart, ToolResultData } from "./content.js";

export type Role = "system" | "user" | "assistant" | "tool" | "developer";

export interface Message {
  readonly role: Role;
  readonly content: readonly ContentPart[];
  readonly name?: string;
  /** For role "tool": the call this message answers. */
  readonly toolCallId?: string;
}

const parts = (content: string | readonly ContentPart[]): readonly ContentPart[] =>
  typeof content === "string" ? [{ kind: "text", text: content }] : content;

/** A system message with the given text. */
export const systemMessage = (text: string): Message => ({ role: "system", content: parts(text) });
/** A developer message with the given text. */
export const developerMessage = (text: string): Message => ({ role: "developer", content: parts(text) });
/** A user message from text or content parts. */
export const userMessage = (content: string | readonly ContentPart[]): Message => ({
  role: "user",
  content: parts(content),
});
/** An assistant message from text or content parts. */
export const assistantMessage = (content: string | readonly ContentPart[]): Message => ({
  role: "assistant",
  content: parts(content),
});
/** A tool message carrying one tool result. */
export const toolResultMessage = (
  toolCallId: string,
  content: ToolResultData["content"],
  isError = false,
  extra: Pick<ToolResultData, "name" | "image" | "document"> = {},
): Message => ({
  role: "tool",
  toolCallId,
  content: [{ kind: "tool_result", toolResult: { toolCallId, content, isError, ...extra } }],
});

/** The concatenation of a message's text parts ("" if none). */
export const messageText = (message: Message): string =>
  message.content.map((p) => (p.kind === "text" ? p.text : "")).join("");
