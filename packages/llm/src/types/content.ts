/** Where an image, audio clip or document comes from: exactly one of url, data or path. */
export interface MediaData {
  readonly url?: string;
  /** Raw bytes, or a base64 string. */
  readonly data?: Uint8Array | string;
  /** A local file (absolute, `./relative` or `~/…`); read and inlined as base64 by the adapter. */
  readonly path?: string;
  /** MIME type; defaults to image/png for image data, inferred from the extension for paths. */
  readonly mediaType?: string;
}

export interface ImageData extends MediaData {
  /** OpenAI only: how closely the model looks at the image. */
  readonly detail?: "auto" | "low" | "high";
}

export interface DocumentData extends MediaData {
  readonly fileName?: string;
}

export interface ToolCallData {
  readonly id: string;
  readonly name: string;
  /** Parsed arguments; `{}` when the model's JSON did not parse (see rawArguments). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The arguments exactly as the model sent them, when they came as text. */
  readonly rawArguments?: string;
  readonly type?: "function" | "custom";
  /** Gemini: the thought signature attached to a functionCall part, sent back verbatim. */
  readonly thoughtSignature?: string;
}

/**
 * A tool result as a message carries it to the provider (wire level); the agent builds these from
 * the ToolResultRecords of its history.
 */
export interface ToolResultData {
  readonly toolCallId: string;
  readonly content: string | Readonly<Record<string, unknown>> | readonly unknown[];
  readonly isError: boolean;
  /** The tool's name; adapters that key results by name (Gemini) look it up from history when absent. */
  readonly name?: string;
  readonly image?: ImageData;
}

export interface ThinkingData {
  readonly text: string;
  /** Anthropic signature (or OpenAI encrypted reasoning content), round-tripped byte for byte. */
  readonly signature?: string;
  /** The provider that produced the signature; other providers drop it. */
  readonly provider?: string;
  /** Provider item id (OpenAI reasoning item). */
  readonly id?: string;
  /**
   * OpenRouter: the `reasoning_details` entries of the message, opaque, sent back verbatim on the
   * assistant message so the upstream model gets its encrypted or signed reasoning back.
   */
  readonly details?: readonly unknown[];
}

export interface TextPart {
  readonly kind: "text";
  readonly text: string;
  /** Gemini: the thought signature the API attached to this text part, sent back verbatim. */
  readonly thoughtSignature?: string;
  /** OpenAI Responses: the output message item this text came in, replayed with its id and phase. */
  readonly item?: OutputItemRef;
}

/** The identity of a Responses API output message, which the API wants back as it was. */
export interface OutputItemRef {
  readonly provider: string;
  readonly id: string;
  /** The item's phase ("commentary", "final_answer"), when the model gave one. */
  readonly phase?: string;
}
export interface ImagePart {
  readonly kind: "image";
  readonly image: ImageData;
}
export interface AudioPart {
  readonly kind: "audio";
  readonly audio: MediaData;
}
export interface DocumentPart {
  readonly kind: "document";
  readonly document: DocumentData;
}
export interface ToolCallPart {
  readonly kind: "tool_call";
  readonly toolCall: ToolCallData;
}
export interface ToolResultPart {
  readonly kind: "tool_result";
  readonly toolResult: ToolResultData;
}
export interface ThinkingPart {
  readonly kind: "thinking";
  readonly thinking: ThinkingData;
}
export interface RedactedThinkingPart {
  readonly kind: "redacted_thinking";
  /** Opaque provider data, passed back verbatim. */
  readonly data: string;
  readonly provider?: string;
}

export type ContentPart =
  | TextPart
  | ImagePart
  | AudioPart
  | DocumentPart
  | ToolCallPart
  | ToolResultPart
  | ThinkingPart
  | RedactedThinkingPart;

export type ContentKind = ContentPart["kind"];

/** A text content part. */
export const textPart = (text: string): TextPart => ({ kind: "text", text });
/** An image content part. */
export const imagePart = (image: ImageData): ImagePart => ({ kind: "image", image });
/** A tool-call content part. */
export const toolCallPart = (toolCall: ToolCallData): ToolCallPart => ({ kind: "tool_call", toolCall });
/** A thinking content part. */
export const thinkingPart = (thinking: ThinkingData): ThinkingPart => ({ kind: "thinking", thinking });
