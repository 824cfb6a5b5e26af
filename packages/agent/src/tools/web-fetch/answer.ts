import {
  type Request,
  responseText,
  StreamAccumulator,
  type StreamEvent,
  systemMessage,
  userMessage,
} from "@attractor/llm";

/** A question about a fetched page, for a model to answer from the page alone. */
export interface PageQuestion {
  readonly url: string;
  readonly question: string;
  /** The page as Markdown or text (already cut to what the side request may carry). */
  readonly content: string;
  readonly signal?: AbortSignal;
}

/** Answers a question about a page in a side request; only the answer enters the conversation. */
export type PageAnswerer = (question: PageQuestion) => Promise<string>;

const SYSTEM = [
  "You answer a question about one web page, using only the page's content given to you.",
  "Be concise and exact; quote code, commands, numbers and names as the page has them, and keep the links that matter.",
  "When the page does not answer the question, say so plainly rather than guessing.",
].join(" ");

/** A PageAnswerer that asks `model` through a client's stream (the session's client and model). */
export function modelPageAnswerer(
  client: { stream(request: Request): AsyncIterable<StreamEvent> },
  options: {
    readonly model: string | (() => string);
    readonly provider?: string;
    readonly maxTokens?: number;
  },
): PageAnswerer {
  return async ({ url, question, content, signal }) => {
    const accumulator = new StreamAccumulator(options.provider);
    const model = typeof options.model === "function" ? options.model() : options.model;
    for await (const event of client.stream({
      model,
      ...(options.provider !== undefined && { provider: options.provider }),
      messages: [
        systemMessage(SYSTEM),
        userMessage(`The page at ${url}:\n\n<page>\n${content}\n</page>\n\nQuestion: ${question}`),
      ],
      maxTokens: options.maxTokens ?? 2048,
      ...(signal !== undefined && { signal }),
    })) {
      accumulator.process(event);
    }
    return responseText(accumulator.response());
  };
}
