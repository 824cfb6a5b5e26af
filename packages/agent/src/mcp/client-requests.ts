import {
  assistantMessage,
  type ContentPart,
  imagePart,
  type Message,
  type Request,
  type Response,
  responseText,
  StreamAccumulator,
  type StreamEvent,
  systemMessage,
  textPart,
  userMessage,
} from "@attractor/llm";
import type { McpContent } from "./results.js";

/** A server's `sampling/createMessage`: it asks the host's model for a completion. */
export interface McpSamplingRequest {
  /** The server asking, as configured. */
  readonly server: string;
  readonly messages: readonly {
    readonly role: "user" | "assistant";
    readonly content: McpContent | readonly McpContent[];
  }[];
  readonly systemPrompt?: string;
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly stopSequences?: readonly string[];
  /** The models the server would like, best first (hints only). */
  readonly modelHints?: readonly string[];
}

/** The completion given back to the server. */
export interface McpSamplingResult {
  readonly text: string;
  /** The model that wrote it. */
  readonly model: string;
  readonly stopReason?: "endTurn" | "stopSequence" | "maxTokens" | (string & {});
}

/** One field of an elicitation form: the protocol allows flat primitives and enums only. */
export type McpElicitationField =
  | {
      readonly kind: "text";
      readonly name: string;
      readonly title: string;
      readonly description?: string;
      readonly required: boolean;
      readonly format?: string;
      readonly default?: string;
    }
  | {
      readonly kind: "number";
      readonly name: string;
      readonly title: string;
      readonly description?: string;
      readonly required: boolean;
      readonly integer: boolean;
      readonly minimum?: number;
      readonly maximum?: number;
      readonly default?: number;
    }
  | {
      readonly kind: "boolean";
      readonly name: string;
      readonly title: string;
      readonly description?: string;
      readonly required: boolean;
      readonly default?: boolean;
    }
  | {
      readonly kind: "choice";
      readonly name: string;
      readonly title: string;
      readonly description?: string;
      readonly required: boolean;
      /** Values with their labels; `multiple` allows several. */
      readonly options: readonly { readonly value: string; readonly label: string }[];
      readonly multiple: boolean;
      readonly default?: string | readonly string[];
    };

/** A server's form-mode `elicitation/create`: it asks the user for some values. */
export interface McpElicitationRequest {
  readonly server: string;
  readonly message: string;
  readonly fields: readonly McpElicitationField[];
}

/** The user's answer to an elicitation. */
export type McpElicitationResult =
  | {
      readonly action: "accept";
      readonly content: Readonly<Record<string, string | number | boolean | readonly string[]>>;
    }
  | { readonly action: "decline" }
  | { readonly action: "cancel" };

/** The JSON-RPC error code the protocol gives a sampling request the user rejected. */
export const USER_REJECTED = -1;

/** Thrown by a sampling handler to refuse the request; the server receives the message. */
export class McpRequestRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpRequestRefused";
  }
}

type Schema = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

function choices(schema: Schema): { value: string; label: string }[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return schema.enum.map((v, i) => ({ value: String(v), label: str(names[i]) ?? String(v) }));
  }
  const list = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(list))
    return list
      .filter((o): o is Schema => typeof o === "object" && o !== null && "const" in o)
      .map((o) => ({ value: String(o.const), label: str(o.title) ?? String(o.const) }));
  return undefined;
}

/** An elicitation's requested schema as fields; a property of an unsupported shape throws. */
export function elicitationFields(requestedSchema: Schema): McpElicitationField[] {
  const properties = (requestedSchema.properties ?? {}) as Readonly<Record<string, Schema>>;
  const required = new Set(
    Array.isArray(requestedSchema.required) ? (requestedSchema.required as string[]) : [],
  );
  return Object.entries(properties).map(([name, p]): McpElicitationField => {
    const common = {
      name,
      title: str(p.title) ?? name,
      ...(str(p.description) !== undefined && { description: str(p.description) as string }),
      required: required.has(name),
    };
    if (p.type === "array") {
      const options = choices((p.items ?? {}) as Schema);
      if (!options) throw new Error(`field "${name}": an array without a list of choices`);
      const def = Array.isArray(p.default) ? (p.default as unknown[]).map(String) : undefined;
      return { kind: "choice", ...common, options, multiple: true, ...(def && { default: def }) };
    }
    const options = choices(p);
    if (options) {
      const def = str(p.default);
      return {
        kind: "choice",
        ...common,
        options,
        multiple: false,
        ...(def !== undefined && { default: def }),
      };
    }
    if (p.type === "boolean")
      return { kind: "boolean", ...common, ...(typeof p.default === "boolean" && { default: p.default }) };
    if (p.type === "number" || p.type === "integer")
      return {
        kind: "number",
        ...common,
        integer: p.type === "integer",
        ...(num(p.minimum) !== undefined && { minimum: num(p.minimum) as number }),
        ...(num(p.maximum) !== undefined && { maximum: num(p.maximum) as number }),
        ...(num(p.default) !== undefined && { default: num(p.default) as number }),
      };
    if (p.type === "string")
      return {
        kind: "text",
        ...common,
        ...(str(p.format) !== undefined && { format: str(p.format) as string }),
        ...(str(p.default) !== undefined && { default: str(p.default) as string }),
      };
    throw new Error(`field "${name}": unsupported type ${JSON.stringify(p.type)}`);
  });
}

function parts(content: McpContent | readonly McpContent[]): ContentPart[] {
  const blocks = (Array.isArray(content) ? content : [content]) as readonly McpContent[];
  const out: ContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "text" && typeof block.text === "string") out.push(textPart(block.text));
    else if (block.type === "image" && typeof block.data === "string")
      out.push(imagePart({ data: block.data, mediaType: String(block.mimeType ?? "image/png") }));
  }
  return out;
}

/** A sampling request as a model request for `model` (text and images; other content is dropped). */
export function samplingModelRequest(request: McpSamplingRequest, model: string, provider?: string): Request {
  const messages: Message[] = [];
  if (request.systemPrompt) messages.push(systemMessage(request.systemPrompt));
  for (const m of request.messages) {
    const content = parts(m.content);
    messages.push(m.role === "user" ? userMessage(content) : assistantMessage(content));
  }
  return {
    model,
    ...(provider !== undefined && { provider }),
    messages,
    maxTokens: request.maxTokens,
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.stopSequences !== undefined && { stopSequences: request.stopSequences }),
  };
}

/** The model's answer as a sampling result. */
export function samplingResult(response: Response): McpSamplingResult {
  const reason = response.finishReason.reason;
  return {
    text: responseText(response),
    model: response.model,
    stopReason: reason === "length" ? "maxTokens" : reason === "stop" ? "endTurn" : reason,
  };
}

/**
 * Answers a sampling request with a model: the request is sent to `model` through the client's
 * stream and the answer's text comes back. Model errors reject (the server receives them).
 */
export async function sampleWithModel(
  client: { stream(request: Request): AsyncIterable<StreamEvent> },
  request: McpSamplingRequest,
  options: { readonly model: string; readonly provider?: string; readonly signal?: AbortSignal },
): Promise<McpSamplingResult> {
  const accumulator = new StreamAccumulator(options.provider);
  const modelRequest = samplingModelRequest(request, options.model, options.provider);
  for await (const event of client.stream({
    ...modelRequest,
    ...(options.signal !== undefined && { signal: options.signal }),
  })) {
    accumulator.process(event);
  }
  const result = samplingResult(accumulator.response());
  return result.model === "" ? { ...result, model: options.model } : result;
}
