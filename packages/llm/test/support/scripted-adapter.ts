/**
 * An in-process ProviderAdapter that replays a script instead of talking to a model.
 *
 * A script is either a list of steps, used one per call in order, or a function
 * `(request, callIndex) => step` so a test can answer according to what it was sent (for
 * example, reply with tool calls until the request carries tool results). Every call is
 * recorded, with its method and the request as received.
 *
 * Steps:
 * - `{ kind: "response", response }`: complete() returns it; stream() yields events built from it.
 * - `{ kind: "stream", events, error? }`: stream() yields the events, then throws `error` if given;
 *   complete() returns the `finish` event's response (or throws `error`).
 * - `{ kind: "error", error }`: the call fails with `error` before any event.
 * - `{ kind: "hang" }`: never answers; fails with AbortError when the request's signal aborts.
 * Any step may set `delayMs`: a wait before answering (abortable through the request's signal);
 * a stream step may set `eventDelayMs`: a wait before each event.
 *
 * Helpers build the usual replies: `textResponse("hi")`, `toolCallResponse([{ name, arguments }])`,
 * `responseEvents(response)` (the event sequence a real adapter would stream for a response).
 */
import { AbortError } from "../../src/errors.js";
import type { ProviderAdapter } from "../../src/providers/adapter.js";
import type {
  ContentPart,
  FinishReason,
  Message,
  Request,
  Response,
  StreamEvent,
  ToolCallData,
  Usage,
} from "../../src/types/index.js";

export type ScriptStep =
  | { readonly kind: "response"; readonly response: Response; readonly delayMs?: number }
  | {
      readonly kind: "stream";
      readonly events: readonly StreamEvent[];
      /** Thrown after the events have been yielded. */
      readonly error?: unknown;
      readonly delayMs?: number;
      /** A wait before each event (abortable), so a test can act while the stream runs. */
      readonly eventDelayMs?: number;
    }
  | { readonly kind: "error"; readonly error: unknown; readonly delayMs?: number }
  | { readonly kind: "hang" };

export type Script =
  | readonly ScriptStep[]
  | ((request: Request, callIndex: number) => ScriptStep | Promise<ScriptStep>);

export interface RecordedCall {
  readonly method: "complete" | "stream";
  readonly request: Request;
  readonly index: number;
}

export interface ScriptedAdapterOptions {
  readonly name?: string;
  /** Tool-choice modes reported as supported (all by default). */
  readonly toolChoiceModes?: readonly string[];
}

/** A scripted adapter: answers calls from the script and records them in `calls`. */
export class ScriptedAdapter implements ProviderAdapter {
  readonly name: string;
  readonly calls: RecordedCall[] = [];
  closed = false;
  private script: Script;
  private readonly toolChoiceModes?: readonly string[];

  constructor(script: Script, options: ScriptedAdapterOptions = {}) {
    this.script = script;
    this.name = options.name ?? "scripted";
    if (options.toolChoiceModes !== undefined) this.toolChoiceModes = options.toolChoiceModes;
  }

  /** The requests received so far, in order. */
  get requests(): Request[] {
    return this.calls.map((c) => c.request);
  }

  /** Replaces the script for later calls (call indexes keep counting). */
  setScript(script: Script): void {
    this.script = script;
  }

  async complete(request: Request): Promise<Response> {
    const step = await this.next("complete", request);
    switch (step.kind) {
      case "response":
        return step.response;
      case "stream": {
        if (step.error !== undefined) throw step.error;
        const finish = step.events.find((e) => e.type === "finish");
        if (finish?.type !== "finish") throw new Error("scripted stream step has no finish event");
        return finish.response;
      }
      case "error":
        throw step.error;
      case "hang":
        return hang(request.signal);
    }
  }

  stream(request: Request): AsyncIterable<StreamEvent> {
    const self = this;
    return (async function* () {
      const step = await self.next("stream", request);
      switch (step.kind) {
        case "response":
          yield* responseEvents(step.response);
          return;
        case "stream":
          for (const event of step.events) {
            if (step.eventDelayMs !== undefined) await wait(step.eventDelayMs, request.signal);
            throwIfAborted(request.signal);
            yield event;
          }
          if (step.error !== undefined) throw step.error;
          return;
        case "error":
          throw step.error;
        case "hang":
          await hang(request.signal);
      }
    })();
  }

  supportsToolChoice(mode: string): boolean {
    return this.toolChoiceModes === undefined || this.toolChoiceModes.includes(mode);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async next(method: RecordedCall["method"], request: Request): Promise<ScriptStep> {
    const index = this.calls.length;
    this.calls.push({ method, request, index });
    throwIfAborted(request.signal);
    const step = typeof this.script === "function" ? await this.script(request, index) : this.script[index];
    if (step === undefined) throw new Error(`scripted adapter: no step for call ${index}`);
    if (step.kind !== "hang" && step.delayMs !== undefined) await wait(step.delayMs, request.signal);
    return step;
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError("request aborted");
}

function hang(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal === undefined) return;
    if (signal.aborted) reject(new AbortError("request aborted"));
    signal.addEventListener("abort", () => reject(new AbortError("request aborted")), { once: true });
  });
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new AbortError("request aborted"));
      },
      { once: true },
    );
  });
}

/** A usage record with the given token counts (total = input + output). */
export const usage = (inputTokens: number, outputTokens: number, extra: Partial<Usage> = {}): Usage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  ...extra,
});

export interface ResponseInit {
  readonly id?: string;
  readonly model?: string;
  readonly provider?: string;
  readonly usage?: Usage;
  readonly finishReason?: FinishReason;
}

/** A Response whose assistant message has the given parts. */
export function response(content: readonly ContentPart[], init: ResponseInit = {}): Response {
  const message: Message = { role: "assistant", content };
  const hasCalls = content.some((p) => p.kind === "tool_call");
  return {
    id: init.id ?? "resp_scripted",
    model: init.model ?? "scripted-model",
    provider: init.provider ?? "scripted",
    message,
    finishReason: init.finishReason ?? { reason: hasCalls ? "tool_calls" : "stop" },
    usage: init.usage ?? usage(10, 5),
    warnings: [],
  };
}

/** A Response with one text part. */
export const textResponse = (text: string, init: ResponseInit = {}): Response =>
  response([{ kind: "text", text }], init);

export interface ScriptedCall {
  readonly name: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly id?: string;
  /** The arguments as raw text; set to send unparseable JSON. */
  readonly rawArguments?: string;
}

let callCounter = 0;

/** A Response asking for the given tool calls (ids generated when absent), with optional leading text. */
export function toolCallResponse(
  calls: readonly ScriptedCall[],
  init: ResponseInit & { readonly text?: string } = {},
): Response {
  const parts: ContentPart[] = [];
  if (init.text !== undefined) parts.push({ kind: "text", text: init.text });
  for (const c of calls) {
    const toolCall: ToolCallData = {
      id: c.id ?? `call_${++callCounter}`,
      name: c.name,
      arguments: c.arguments ?? {},
      ...(c.rawArguments !== undefined && { rawArguments: c.rawArguments }),
    };
    parts.push({ kind: "tool_call", toolCall });
  }
  return response(parts, init);
}

/** The stream a real adapter would produce for a response: start, per-part start/delta/end, finish. */
export function responseEvents(res: Response, options: { readonly chunkSize?: number } = {}): StreamEvent[] {
  const size = options.chunkSize ?? 4;
  const events: StreamEvent[] = [{ type: "stream_start", id: res.id, model: res.model }];
  res.message.content.forEach((part, i) => {
    const id = `${i}`;
    if (part.kind === "text") {
      events.push({ type: "text_start", textId: id });
      for (let at = 0; at < part.text.length; at += size) {
        events.push({ type: "text_delta", textId: id, delta: part.text.slice(at, at + size) });
      }
      events.push({ type: "text_end", textId: id });
    } else if (part.kind === "thinking") {
      events.push({ type: "reasoning_start", reasoningId: id });
      events.push({ type: "reasoning_delta", reasoningId: id, delta: part.thinking.text });
      events.push({ type: "reasoning_end", reasoningId: id, thinking: part.thinking });
    } else if (part.kind === "tool_call") {
      const call = part.toolCall;
      events.push({ type: "tool_call_start", id: call.id, name: call.name });
      events.push({
        type: "tool_call_delta",
        id: call.id,
        argumentsDelta: call.rawArguments ?? JSON.stringify(call.arguments),
      });
      events.push({ type: "tool_call_end", toolCall: call });
    } else if (part.kind === "redacted_thinking") {
      events.push({ type: "redacted_reasoning", data: part.data });
    }
  });
  events.push({ type: "finish", finishReason: res.finishReason, usage: res.usage, response: res });
  return events;
}

/** The tool results a request carries, in message order. */
export const toolResultsIn = (request: Request) =>
  request.messages.flatMap((m) => m.content.flatMap((p) => (p.kind === "tool_result" ? [p.toolResult] : [])));
