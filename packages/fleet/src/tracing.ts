import type { AttemptEnd } from "./metrics.js";
import type { TaskOutcome } from "./run-task.js";
import type { QueuedTask } from "./task.js";

// OpenTelemetry traces of task attempts, exported over OTLP/HTTP when the worker's environment
// names an endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). The
// spans are made from the session transcript the attempt leaves (each turn is stored with the time
// it ended), after the attempt: the agent process carries no tracing of its own, and the
// OpenTelemetry packages load only in a worker that exports.

/** One attempt, as the worker saw it. */
export interface AttemptRecord {
  readonly task: QueuedTask;
  readonly queue: string;
  /** Attempts of the task so far, this one included. */
  readonly attempt: number;
  readonly end: AttemptEnd;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly outcome?: TaskOutcome;
  readonly error?: string;
}

/** A worker's trace exporter. */
export interface AttemptTracer {
  /** Exports one attempt's trace (queued; sent in batches). */
  record(attempt: AttemptRecord): void;
  /** Sends what is queued and stops. */
  close(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The OTLP/HTTP traces address the environment names, or undefined when it names none. */
export function tracesEndpoint(env: Env): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base || env.OTEL_TRACES_EXPORTER === "none" || env.OTEL_SDK_DISABLED === "true") return undefined;
  // The generic endpoint gets the signal's path, as the OTLP exporter specification says.
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}

/** `k=v,k2=v2` (values URL-encoded) as OTEL_EXPORTER_OTLP_HEADERS gives them. */
function headersOf(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  const text = env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS ?? "";
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at > 0)
      out[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

/** A transcript line's turn, as the session store writes it. */
type StoredTurn = {
  kind?: string;
  timestamp?: string;
  model?: string;
  provider?: string;
  finishReason?: string;
  responseId?: string;
  usage?: {
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
  };
  toolCalls?: { id?: string; name?: string }[];
  results?: { toolCallId?: string; toolName?: string; isError?: boolean }[];
};

/** The turns of a transcript (JSONL), in order; lines that are not turns are skipped. */
function turnsOf(transcript: string | undefined): StoredTurn[] {
  const out: StoredTurn[] = [];
  for (const line of (transcript ?? "").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const entry = JSON.parse(line) as { type?: string; turn?: StoredTurn; timestamp?: string };
      if (entry.type === "turn" && entry.turn !== undefined)
        out.push({ ...entry.turn, timestamp: entry.turn.timestamp ?? entry.timestamp });
    } catch {
      // A torn last line: what precedes it still traces.
    }
  }
  return out;
}

const time = (iso: string | undefined, fallback: number): number => {
  const t = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(t) ? fallback : t;
};

/**
 * A tracer exporting each attempt as a trace to the environment's OTLP/HTTP endpoint, or
 * undefined when none is named. The trace: a `fleet.task` span for the attempt (task id, run,
 * queue, attempt, outcome, tokens, cost, turns), a `chat <model>` span per model turn (from the
 * end of what preceded it to the end of the answer; tokens, finish reason) and an
 * `execute_tool <name>` span per tool call (the tool batch's time; an error status when the tool
 * failed), named and attributed after OpenTelemetry's GenAI conventions.
 */
export async function startAttemptTracer(env: Env): Promise<AttemptTracer | undefined> {
  const url = tracesEndpoint(env);
  if (url === undefined) return undefined;
  const [api, sdk, exporter, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME ?? "attractor-fleet-worker",
    }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new exporter.OTLPTraceExporter({ url, headers: headersOf(env) }),
      }),
    ],
  });
  const tracer = provider.getTracer("@attractor/fleet");
  const { SpanKind, SpanStatusCode, trace, ROOT_CONTEXT } = api;
  return {
    record(a) {
      const usage = a.outcome?.usage ?? {};
      const task = tracer.startSpan(
        "fleet.task",
        {
          kind: SpanKind.CONSUMER,
          startTime: a.startedAt,
          attributes: {
            "attractor.task.id": a.task.id,
            "attractor.run": a.task.run,
            "attractor.queue": a.queue,
            "attractor.attempt": a.attempt,
            "attractor.outcome": a.end,
            ...(a.task.provider !== undefined && { "gen_ai.provider.name": a.task.provider }),
            ...(a.task.model !== undefined && { "gen_ai.request.model": a.task.model }),
            ...(a.outcome !== undefined && {
              "gen_ai.usage.input_tokens": usage.input_tokens ?? 0,
              "gen_ai.usage.output_tokens": usage.output_tokens ?? 0,
              "attractor.usage.cache_read_tokens": usage.cache_read_input_tokens ?? 0,
              "attractor.usage.cache_write_tokens": usage.cache_creation_input_tokens ?? 0,
              "attractor.turns": a.outcome.turns,
              ...(a.outcome.cost_usd !== null && { "attractor.cost_usd": a.outcome.cost_usd }),
              ...(a.outcome.session_id !== undefined && { "attractor.session.id": a.outcome.session_id }),
            }),
          },
        },
        ROOT_CONTEXT,
      );
      const parent = trace.setSpan(ROOT_CONTEXT, task);
      let previous = a.startedAt;
      for (const turn of turnsOf(a.outcome?.transcript)) {
        const at = time(turn.timestamp, previous);
        if (turn.kind === "assistant") {
          const model = turn.model ?? a.task.model ?? "model";
          const span = tracer.startSpan(
            `chat ${model}`,
            {
              kind: SpanKind.CLIENT,
              startTime: previous,
              attributes: {
                "gen_ai.operation.name": "chat",
                ...(turn.provider !== undefined && { "gen_ai.provider.name": turn.provider }),
                "gen_ai.response.model": model,
                ...(turn.responseId !== undefined && { "gen_ai.response.id": turn.responseId }),
                ...(turn.finishReason !== undefined && {
                  "gen_ai.response.finish_reasons": [turn.finishReason],
                }),
                "gen_ai.usage.input_tokens": turn.usage?.inputTokens ?? 0,
                "gen_ai.usage.output_tokens": turn.usage?.outputTokens ?? 0,
                "attractor.usage.cache_read_tokens": turn.usage?.cacheReadTokens ?? 0,
                "attractor.usage.cache_write_tokens": turn.usage?.cacheWriteTokens ?? 0,
                "attractor.tool_calls": turn.toolCalls?.length ?? 0,
              },
            },
            parent,
          );
          span.end(at);
        } else if (turn.kind === "tool_results") {
          for (const result of turn.results ?? []) {
            const name = result.toolName ?? "tool";
            const span = tracer.startSpan(
              `execute_tool ${name}`,
              {
                kind: SpanKind.INTERNAL,
                startTime: previous,
                attributes: {
                  "gen_ai.operation.name": "execute_tool",
                  "gen_ai.tool.name": name,
                  ...(result.toolCallId !== undefined && { "gen_ai.tool.call.id": result.toolCallId }),
                  "attractor.tool.is_error": result.isError === true,
                },
              },
              parent,
            );
            if (result.isError === true)
              span.setStatus({ code: SpanStatusCode.ERROR, message: "the tool failed" });
            span.end(at);
          }
        }
        previous = Math.max(previous, at);
      }
      const message = a.error ?? a.outcome?.error?.message;
      if (a.end !== "completed")
        task.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined && { message }) });
      task.end(a.endedAt);
    },
    async close() {
      await provider.shutdown();
    },
  };
}
