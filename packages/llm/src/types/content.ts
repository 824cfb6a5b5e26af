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
  /**
   * A document the result carries (a PDF read by a tool). Adapters whose API takes documents in
   * tool results (Anthropic, OpenAI Responses, Gemini) send it with its `text` in place of
   * `content`; the others send `content`, which should then hold what the model can use without
   * it (the document's extracted text).
   */
  readonly document?: ToolResultDocument;
}

/** A document sent as a tool's result, with the text that goes with it instead of `content`. */
export interface ToolResultDocument {
  readonly document: DocumentData;
  readonly text: string;
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

/**
 * A source the model cites for a stretch of its answer. `raw` is the provider's own citation
 * object, sent back verbatim to that provider (`provider`) when the text returns in the history.
 */
export interface Citation {
  readonly url: string;
  readonly title?: string;
  /** The cited passage (Anthropic) or the answer's text the source supports (Gemini). */
  readonly citedText?: string;
  /** Character range of the cited answer text within the text part (OpenAI). */
  readonly startIndex?: number;
  readonly endIndex?: number;
  readonly provider?: string;
  readonly raw?: unknown;
}

export interface TextPart {
  readonly kind: "text";
  readonly text: string;
  /** The sources the model cited for this text (web search). */
  readonly citations?: readonly Citation[];
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
/** One page a web search found. */
export interface WebSearchResult {
  readonly url: string;
  readonly title?: string;
  /** How old the page is, as the provider reports it (Anthropic `page_age`). */
  readonly pageAge?: string;
}

/**
 * A web search the provider ran itself (a provider tool): its queries, the pages found, and the
 * provider's own blocks or items, which go back verbatim to that provider (the results carry
 * encrypted content the model needs on the next request) and are dropped for any other.
 */
export interface WebSearchData {
  /** The provider's id for the search call. */
  readonly id: string;
  readonly provider: string;
  readonly queries: readonly string[];
  readonly results: readonly WebSearchResult[];
  /** "in_progress" when the response ended before the result (a paused turn). */
  readonly status: "completed" | "failed" | "in_progress";
  /** The provider's reason when the search failed (e.g. `max_uses_exceeded`). */
  readonly error?: string;
  readonly raw?: readonly unknown[];
}

export interface WebSearchPart {
  readonly kind: "web_search";
  readonly webSearch: WebSearchData;
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
  | RedactedThinkingPart
  | WebSearchPart;

export type ContentKind = ContentPart["kind"];

/** A text content part. */
export const textPart = (text: string): TextPart => ({ kind: "text", text });
/** An image content part. */
export const imagePart = (image: ImageData): ImagePart => ({ kind: "image", image });
/** A tool-call content part. */
export const toolCallPart = (toolCall: ToolCallData): ToolCallPart => ({ kind: "tool_call", toolCall });
/** A thinking content part. */
export const thinkingPart = (thinking: ThinkingData): ThinkingPart => ({ kind: "thinking", thinking });
