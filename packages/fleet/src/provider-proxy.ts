import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Redis } from "ioredis";
import { acquireRequest, LIMIT_WINDOW_MS, type ProviderLimit, spendTokens } from "./rate-window.js";

// A worker's loopback proxy for one model provider. The agent the worker starts reaches the
// provider through it (the provider's base URL variable points here), so every model request of
// every agent passes one place that can hold it while the provider's shared window is spent,
// count the tokens its answer reports, and add the provider key itself: the agent, and the
// commands it runs, hold a placeholder instead of the key.

/** How one provider is reached: its base URL variable and default, and how its key is sent. */
interface ProviderWire {
  /** Variables naming the base URL, the first the one the agent is given. */
  readonly baseVars: readonly string[];
  readonly defaultBase: string | undefined;
  /** Variables holding the credential, in the order the agent's client reads them. */
  readonly keyVars: readonly string[];
  /** Whether a request may go without a key (a local OpenAI-compatible server). */
  readonly keyOptional?: boolean;
  /** The headers carrying the credential read from `keyVar`. */
  readonly auth: (keyVar: string, key: string) => Record<string, string>;
}

const bearer = (_var: string, key: string) => ({ authorization: `Bearer ${key}` });

const WIRES: Readonly<Record<string, ProviderWire>> = {
  anthropic: {
    baseVars: ["ANTHROPIC_BASE_URL"],
    defaultBase: "https://api.anthropic.com",
    keyVars: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
    auth: (keyVar, key): Record<string, string> =>
      keyVar === "ANTHROPIC_API_KEY" ? { "x-api-key": key } : { authorization: `Bearer ${key}` },
  },
  openai: {
    baseVars: ["OPENAI_BASE_URL"],
    defaultBase: "https://api.openai.com/v1",
    keyVars: ["OPENAI_API_KEY"],
    auth: bearer,
  },
  gemini: {
    baseVars: ["GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"],
    defaultBase: "https://generativelanguage.googleapis.com",
    keyVars: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    auth: (_var, key) => ({ "x-goog-api-key": key }),
  },
  "openai-compatible": {
    baseVars: ["OPENAI_COMPATIBLE_BASE_URL"],
    defaultBase: undefined,
    keyVars: ["OPENAI_COMPATIBLE_API_KEY"],
    keyOptional: true,
    auth: bearer,
  },
};

/** The providers a worker can limit (and hide the key of). */
export const PROXIED_PROVIDERS = Object.keys(WIRES);

/** What the agent holds instead of a provider key. */
export const KEY_PLACEHOLDER = "held-by-the-fleet-worker";

/** A provider limit the worker cannot apply: an unknown provider, or no key or base URL for it. */
export class ProviderLimitError extends Error {
  override readonly name = "ProviderLimitError";
  constructor(
    readonly provider: string,
    message: string,
  ) {
    super(`provider limit for ${provider}: ${message}`);
  }
}

/** A running proxy for one provider. */
export interface ProviderProxy {
  readonly provider: string;
  /** The variables the agent gets: its base URL pointing here, a placeholder for the key (undefined: removed). */
  readonly agentEnv: Readonly<Record<string, string | undefined>>;
  close(): Promise<void>;
}

/** Options of one provider's proxy. */
export interface ProviderProxyOptions {
  readonly provider: string;
  /** The worker's environment: the real key and base URL. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly redis: Redis;
  readonly limit: ProviderLimit;
  /** The window limits count over (a minute). */
  readonly windowMs?: number;
  /** A request held longer than this is answered 429 for the agent to retry (90 000 ms, under its 120 s request timeout). */
  readonly maxWaitMs?: number;
  /** Called once the provider's answer to a request has passed: how long it was held, its status, the tokens it reported. */
  readonly onAnswer?: (answer: ProxiedAnswer) => void;
  /**
   * Called when the tokens an answer reported could not be added to the shared window (Redis
   * failing): the limit then under-counts them, which the worker reports rather than hides.
   */
  readonly onUncounted?: (provider: string, tokens: number, error: unknown) => void;
}

/** One request that went to the provider through the proxy. */
export interface ProxiedAnswer {
  readonly provider: string;
  /** How long the limit held it before it went. */
  readonly heldMs: number;
  readonly status: number;
  readonly tokens: number;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);
const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key"]);

/** Token fields of the usage objects providers report; cached and reasoning parts are inside these, except Anthropic's cache fields. */
const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
  "prompt_tokens",
  "completion_tokens",
  "promptTokenCount",
  "candidatesTokenCount",
  "thoughtsTokenCount",
] as const;

/**
 * Reads the usage a response reports, from a JSON body or a stream of server-sent events: each
 * field's largest value (Anthropic's stream repeats and grows the output count), summed.
 */
export function usageCounter(): { feed(chunk: string): void; end(contentType: string): number } {
  const most = new Map<string, number>();
  let text = "";
  let sse: boolean | undefined;
  const take = (value: unknown) => {
    if (typeof value !== "object" || value === null) return;
    const o = value as Record<string, unknown>;
    const record = (usage: unknown) => {
      if (typeof usage !== "object" || usage === null) return;
      for (const f of TOKEN_FIELDS) {
        const n = (usage as Record<string, unknown>)[f];
        if (typeof n === "number" && n > (most.get(f) ?? 0)) most.set(f, n);
      }
    };
    record(o.usage);
    record(o.usageMetadata);
    record((o.message as Record<string, unknown> | undefined)?.usage);
    record((o.response as Record<string, unknown> | undefined)?.usage);
  };
  const lines = (final: boolean) => {
    const parts = text.split("\n");
    text = final ? "" : (parts.pop() ?? "");
    for (const line of parts) {
      if (!line.startsWith("data:")) continue;
      try {
        take(JSON.parse(line.slice(5).trim()));
      } catch {
        // [DONE] and other non-JSON payloads carry no usage.
      }
    }
  };
  return {
    feed(chunk) {
      text += chunk;
      sse ??= /^\s*(event|data|id|retry|:)/.test(text) ? true : undefined;
      if (sse) lines(false);
      else if (text.length > 16 * 1024 * 1024) text = ""; // not an answer whose usage we can read
    },
    end(contentType) {
      if (sse || contentType.includes("event-stream")) lines(true);
      else
        try {
          take(JSON.parse(text));
        } catch {
          // Not JSON: no usage to count.
        }
      let sum = 0;
      for (const n of most.values()) sum += n;
      return sum;
    },
  };
}

/** Where the provider is, and its key, from the worker's environment; ProviderLimitError when missing. */
function upstreamOf(provider: string, env: Readonly<Record<string, string | undefined>>) {
  const wire = WIRES[provider];
  if (wire === undefined)
    throw new ProviderLimitError(provider, `unknown provider (known: ${PROXIED_PROVIDERS.join(", ")})`);
  const base =
    wire.baseVars.map((v) => env[v]?.trim()).find((v) => v !== undefined && v !== "") ?? wire.defaultBase;
  if (base === undefined) throw new ProviderLimitError(provider, `${wire.baseVars[0]} is not set`);
  const keyVar = wire.keyVars.find((v) => (env[v] ?? "") !== "");
  if (keyVar === undefined && wire.keyOptional !== true)
    throw new ProviderLimitError(
      provider,
      `no key in the worker's environment (${wire.keyVars.join(" or ")})`,
    );
  return {
    wire,
    base: new URL(base),
    keyVar,
    key: keyVar === undefined ? undefined : (env[keyVar] as string),
  };
}

/**
 * Starts a loopback proxy for one provider (ProviderLimitError when the worker has no key or base
 * URL for it). Each request waits for the provider's shared window (acquireRequest), goes to the
 * provider with the worker's key in place of whatever the agent sent, and its answer, streamed
 * back as it comes, has its reported tokens counted in the window. The provider's own answers,
 * 429s included, reach the agent unchanged.
 */
export async function startProviderProxy(options: ProviderProxyOptions): Promise<ProviderProxy> {
  const { provider, redis, limit } = options;
  const { wire, base, keyVar, key } = upstreamOf(provider, options.env);
  const windowMs = options.windowMs ?? LIMIT_WINDOW_MS;
  const maxWaitMs = options.maxWaitMs ?? 90_000;
  const send = base.protocol === "https:" ? httpsRequest : httpRequest;
  const basePath = base.pathname.replace(/\/+$/, "");
  const open = new Set<() => void>();

  const server: Server = createServer((req, res) => {
    const aborted = new AbortController();
    const stop = () => aborted.abort(new Error("the agent went away"));
    res.on("close", stop);
    open.add(stop);
    const fail = (status: number, message: string, headers: Record<string, string> = {}) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify({ type: "error", error: { type: "fleet_proxy_error", message } }));
    };
    const body: Buffer[] = [];
    req.on("data", (c: Buffer) => body.push(c));
    req.on("end", async () => {
      try {
        const held = AbortSignal.any([aborted.signal, AbortSignal.timeout(maxWaitMs)]);
        let heldMs: number;
        try {
          heldMs = await acquireRequest(redis, provider, limit, windowMs, held);
        } catch (error) {
          if (aborted.signal.aborted) return;
          if (held.aborted) {
            fail(429, `the fleet's ${provider} limit held this request ${maxWaitMs / 1000} s`, {
              "retry-after": "10",
            });
            return;
          }
          throw error;
        }
        const incoming = new URL(req.url ?? "/", "http://127.0.0.1");
        incoming.searchParams.delete("key");
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(req.headers as IncomingHttpHeaders))
          if (value !== undefined && !HOP_BY_HOP.has(name) && !CREDENTIAL_HEADERS.has(name))
            headers[name] = value;
        // Usage is read from the answer as it passes: no compression.
        headers["accept-encoding"] = "identity";
        if (keyVar !== undefined && key !== undefined) Object.assign(headers, wire.auth(keyVar, key));
        const upstream = send(
          new URL(
            `${incoming.pathname.startsWith(basePath) ? "" : basePath}${incoming.pathname}${incoming.search}`,
            base.origin,
          ),
          { method: req.method, headers, signal: aborted.signal },
          (answer) => {
            const out: Record<string, string | string[]> = {};
            for (const [name, value] of Object.entries(answer.headers))
              if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
            res.writeHead(answer.statusCode ?? 502, out);
            const usage = usageCounter();
            answer.on("data", (chunk: Buffer) => {
              usage.feed(chunk.toString("utf8"));
              res.write(chunk);
            });
            answer.on("end", () => {
              res.end();
              const tokens = usage.end(String(answer.headers["content-type"] ?? ""));
              void spendTokens(redis, provider, tokens, windowMs).catch((error: unknown) =>
                options.onUncounted?.(provider, tokens, error),
              );
              options.onAnswer?.({ provider, heldMs, status: answer.statusCode ?? 502, tokens });
            });
            answer.on("error", () => res.destroy());
          },
        );
        upstream.on("error", (error: Error) => {
          if (!aborted.signal.aborted) fail(502, `cannot reach ${provider}: ${error.message}`);
        });
        upstream.end(Buffer.concat(body));
      } catch (error) {
        fail(502, `the fleet's ${provider} proxy failed: ${(error as Error).message}`);
      } finally {
        open.delete(stop);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const agentEnv: Record<string, string | undefined> = {};
  for (const v of wire.baseVars) agentEnv[v] = undefined;
  agentEnv[wire.baseVars[0] as string] = `http://127.0.0.1:${port}${basePath}`;
  for (const v of wire.keyVars) agentEnv[v] = undefined;
  // The agent's client needs a key to talk at all: it gets one that opens nothing.
  if (keyVar !== undefined) agentEnv[wire.keyVars[0] as string] = KEY_PLACEHOLDER;
  return {
    provider,
    agentEnv,
    async close() {
      for (const stop of open) stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
