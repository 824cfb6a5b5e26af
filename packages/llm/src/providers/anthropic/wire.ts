/** One content block, tool definition or system block of a Messages API request body. */
export type WireBlock = Record<string, unknown>;

export interface WireMessage {
  readonly role: "user" | "assistant";
  content: WireBlock[];
}

/** The request body we build; provider options may add any other top-level key. */
export interface WireBody {
  model: string;
  max_tokens: number;
  messages: WireMessage[];
  system?: WireBlock[];
  tools?: WireBlock[];
  tool_choice?: WireBlock;
  [key: string]: unknown;
}

/** The beta that lets Claude 4 models before 4.6 think between tool calls with budget thinking. */
export const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";
