import { createServer, type Server } from "node:http";
import type { Queue } from "bullmq";
import type { TaskOutcome } from "./run-task.js";

/** How an attempt ended, as the metrics count it. */
export type AttemptEnd = "completed" | "failed" | "cancelled" | "refused" | "rate_limited" | "lost_lock";

/** A worker's counters since it started; exported in Prometheus's text format with BullMQ's queue gauges. */
export interface WorkerMetrics {
  /** Counts one attempt's end and, when it ran the agent, its tokens, cost and duration. */
  record(end: AttemptEnd, outcome?: TaskOutcome): void;
  /** Counts a model request that went through a provider's proxy: the time the limit held it and its tokens. */
  provider(provider: string, heldMs: number, tokens: number): void;
  /** Tokens an answer reported that the provider's shared window could not count (Redis failing). */
  uncounted(provider: string, tokens: number): void;
  /** The exposition text: this worker's counters, then BullMQ's counts of the queue. */
  text(queue: Queue, running: number): Promise<string>;
}

const labelValue = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** One provider's counters in a worker. */
interface ProviderCounts {
  requests: number;
  heldS: number;
  tokens: number;
  uncounted: number;
}

/** Fresh counters for one worker of one queue. */
export function workerMetrics(queueName: string): WorkerMetrics {
  const ends = new Map<AttemptEnd, number>();
  const tokens = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  let cost = 0;
  let seconds = 0;
  let timed = 0;
  const providers = new Map<string, ProviderCounts>();
  const countsOf = (provider: string): ProviderCounts => {
    let p = providers.get(provider);
    if (p === undefined) {
      p = { requests: 0, heldS: 0, tokens: 0, uncounted: 0 };
      providers.set(provider, p);
    }
    return p;
  };
  const q = `queue="${labelValue(queueName)}"`;
  const perProvider = (name: string, help: string, type: string, pick: (p: ProviderCounts) => number) =>
    providers.size === 0
      ? []
      : [
          `# HELP ${name} ${help}`,
          `# TYPE ${name} ${type}`,
          ...[...providers].map(([p, v]) => `${name}{${q},provider="${labelValue(p)}"} ${pick(v)}`),
        ];
  return {
    provider(provider, heldMs, tokens) {
      const p = countsOf(provider);
      p.requests++;
      p.heldS += heldMs / 1000;
      p.tokens += tokens;
    },
    uncounted(provider, tokens) {
      countsOf(provider).uncounted += tokens;
    },
    record(end, outcome) {
      ends.set(end, (ends.get(end) ?? 0) + 1);
      if (outcome === undefined) return;
      tokens.input += outcome.usage.input_tokens ?? 0;
      tokens.output += outcome.usage.output_tokens ?? 0;
      tokens.cache_read += outcome.usage.cache_read_input_tokens ?? 0;
      tokens.cache_write += outcome.usage.cache_creation_input_tokens ?? 0;
      cost += outcome.cost_usd ?? 0;
      seconds += outcome.duration_ms / 1000;
      timed++;
    },
    async text(queue, running) {
      const lines = [
        "# HELP attractor_fleet_attempts_total Task attempts this worker ended, by how they ended.",
        "# TYPE attractor_fleet_attempts_total counter",
        ...[...ends].map(([end, n]) => `attractor_fleet_attempts_total{${q},outcome="${end}"} ${n}`),
        "# HELP attractor_fleet_tokens_total Model tokens the agents of this worker used.",
        "# TYPE attractor_fleet_tokens_total counter",
        ...Object.entries(tokens).map(
          ([kind, n]) => `attractor_fleet_tokens_total{${q},kind="${kind}"} ${n}`,
        ),
        "# HELP attractor_fleet_cost_usd_total Model cost of this worker's attempts (where the price is known).",
        "# TYPE attractor_fleet_cost_usd_total counter",
        `attractor_fleet_cost_usd_total{${q}} ${cost}`,
        "# HELP attractor_fleet_attempt_seconds Wall-clock time of the attempts that ran the agent.",
        "# TYPE attractor_fleet_attempt_seconds summary",
        `attractor_fleet_attempt_seconds_sum{${q}} ${seconds}`,
        `attractor_fleet_attempt_seconds_count{${q}} ${timed}`,
        "# HELP attractor_fleet_running Tasks this worker is running.",
        "# TYPE attractor_fleet_running gauge",
        `attractor_fleet_running{${q}} ${running}`,
        ...perProvider(
          "attractor_fleet_provider_requests_total",
          "Model requests this worker's agents sent through its provider proxies.",
          "counter",
          (p) => p.requests,
        ),
        ...perProvider(
          "attractor_fleet_provider_held_seconds_total",
          "Time the provider limits held those requests before they went.",
          "counter",
          (p) => p.heldS,
        ),
        ...perProvider(
          "attractor_fleet_provider_tokens_total",
          "Tokens the provider reported in its answers to those requests.",
          "counter",
          (p) => p.tokens,
        ),
        ...perProvider(
          "attractor_fleet_provider_uncounted_tokens_total",
          "Of those, tokens the shared window could not count (Redis failing): the limit under-counted them.",
          "counter",
          (p) => p.uncounted,
        ),
      ];
      // The queue's counts are the queue's, the same from every worker: aggregate them with max().
      const bull = await queue.exportPrometheusMetrics().catch(() => "");
      return `${lines.join("\n")}\n${bull}${bull === "" ? "" : "\n"}`;
    },
  };
}

/**
 * Serves `/metrics` (Prometheus text) and `/healthz` (200 while `healthy()` says so, else 503) on
 * host:port; resolves once listening.
 */
export async function serveMetrics(
  host: string,
  port: number,
  metrics: () => Promise<string>,
  healthy: () => boolean,
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === "/metrics") {
      metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
          res.end(text);
        },
        (error: Error) => {
          res.writeHead(500);
          res.end(error.message);
        },
      );
      return;
    }
    if (req.url === "/healthz") {
      const ok = healthy();
      res.writeHead(ok ? 200 : 503, { "content-type": "text/plain" });
      res.end(ok ? "ok\n" : "Redis has not answered lately\n");
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
