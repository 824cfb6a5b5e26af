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

/** The beta header that announces prompt caching. */
export const PROMPT_CACHING_BETA = "prompt-caching-2024-07-31";
