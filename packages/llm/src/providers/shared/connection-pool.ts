import type { Agent } from "undici";
import { ConnectTimeoutError } from "../../errors.js";
import { HTTP_CONNECT_TIMEOUT_CODE, HttpTransport, plainRequest } from "./http-transport.js";

/** The `undici` package's module shape; a type only, so importing this file never loads it. */
export type UndiciModule = typeof import("undici");

let loading: Promise<UndiciModule> | undefined;

/**
 * Loads undici on first use, so importing this package never loads it. A bundler may hand the
 * CommonJS package over as a default export only, so both shapes are accepted.
 */
export function loadUndici(): Promise<UndiciModule> {
  loading ??= import("undici").then(
    (mod) => ("Agent" in mod ? mod : (mod as { default: UndiciModule }).default) as UndiciModule,
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/**
 * The connect timeout of the platform's fetch: Node's fetch is undici's, whose connector gives up
 * after 10 s by default. Calls with this timeout use the platform fetch (built into Node, so it
 * costs no module loading, and it honours a dispatcher set with undici's setGlobalDispatcher);
 * only other timeouts need an Agent of their own, and load undici for it.
 */
export const PLATFORM_CONNECT_MS = 10_000;

/** One call's connection settings, and the connect timeout it ran into, if any. */
export interface ConnectCall {
  readonly provider: string;
  readonly connectMs: number;
  /** Set by the fetch when this call's connection attempt timed out. */
  failure?: ConnectTimeoutError;
}

/** undici's code for a connection not established within the connector's timeout, and ours. */
const CONNECT_TIMEOUT_CODES: ReadonlySet<unknown> = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  HTTP_CONNECT_TIMEOUT_CODE,
]);

/** Whether `err` or an error in its cause chain is a connect timeout. */
export function isConnectTimeout(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (CONNECT_TIMEOUT_CODES.has((e as { code?: unknown }).code)) return true;
  }
  return false;
}

/** Where undici keeps the dispatcher set with its setGlobalDispatcher. */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/**
 * Whether the platform fetch must carry requests: a global dispatcher other than a plain Agent
 * was set (a ProxyAgent, a MockAgent in a user's tests), or Node is told to honour the proxy
 * environment variables, which only its fetch reads. Node's fetch installs a plain Agent as the
 * default dispatcher when it loads, so a plain Agent says nothing.
 */
function platformFetchRequired(): boolean {
  const dispatcher = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER];
  if (
    dispatcher !== undefined &&
    (dispatcher as { constructor?: { name?: string } }).constructor?.name !== "Agent"
  ) {
    return true;
  }
  const env = process.env;
  return (
    env.NODE_USE_ENV_PROXY === "1" &&
    [env.HTTPS_PROXY, env.https_proxy, env.HTTP_PROXY, env.http_proxy].some(
      (v) => v !== undefined && v !== "",
    )
  );
}

const hostOf = (input: unknown): string => {
  const url =
    input instanceof URL ? input : typeof input === "string" ? input : (input as { url?: string }).url;
  try {
    return new URL(String(url)).host;
  } catch {
    return "the server";
  }
};

/**
 * The key under which a call rides in an SDK request's fetch options: the SDKs copy those into
 * the init they give their fetch, so sdkFetch finds the call there.
 */
const CONNECT_CALL = Symbol("attractor.connectCall");

/** Most connect timeouts an adapter keeps a pool for; each distinct value gets its own Agent. */
const MAX_POOLS = 8;

/** How a pool sends requests: node:http where it can (see http-transport.ts), or the platform fetch. */
export type PoolTransport = "node-http" | "platform";

/**
 * One adapter's connections. A "node-http" pool sends plain requests over node:http with
 * kept-alive connections of its own (the platform fetch still carries what that cannot send, and
 * everything when a global dispatcher or proxy is set). Otherwise calls with the platform's
 * connect timeout go through the platform fetch and its shared connection pool, and any other
 * timeout gets an undici Agent of this pool's (one per value in use). Either way a new connection
 * that is not up within the call's `connectMs` fails as ConnectTimeoutError. Request and
 * stream-read deadlines stay the adapters'.
 */
export class ConnectionPool {
  private readonly agents = new Map<number, Agent>();
  private readonly http: HttpTransport | undefined;

  constructor(
    private readonly provider: string,
    transport: PoolTransport = "platform",
  ) {
    this.http = transport === "node-http" ? new HttpTransport() : undefined;
  }

  /** A fresh record for one call with this connect timeout. */
  call(connectMs: number): ConnectCall {
    return { provider: this.provider, connectMs };
  }

  /** Fetches through the call's connections; a connect timeout is thrown as, and recorded as, ConnectTimeoutError. */
  async fetch(call: ConnectCall, input: string | URL | Request, init?: RequestInit): Promise<Response> {
    try {
      if (this.http !== undefined && !platformFetchRequired()) {
        const plain = plainRequest(input, init);
        if (plain !== undefined) return await this.http.fetch(plain, call.connectMs);
      }
      if (call.connectMs === PLATFORM_CONNECT_MS) return await globalThis.fetch(input, init);
      const undici = await loadUndici();
      const dispatcher = this.agent(undici, call.connectMs);
      const res = await undici.fetch(input as never, { ...init, dispatcher } as never);
      return res as unknown as Response;
    } catch (err) {
      if (!isConnectTimeout(err)) throw err;
      call.failure = new ConnectTimeoutError(
        `${call.provider}: no connection to ${hostOf(input)} within ${call.connectMs} ms`,
        { cause: err, provider: call.provider, connectMs: call.connectMs },
      );
      throw call.failure;
    }
  }

  /**
   * A fetch for an SDK client: it serves the call given to the request in `fetchOptions(call)`
   * (the one that records a connect timeout), or a call with `connectMs` otherwise.
   */
  sdkFetch(connectMs: number): typeof globalThis.fetch {
    return (input, init) =>
      this.fetch(
        (init as { [CONNECT_CALL]?: ConnectCall } | undefined)?.[CONNECT_CALL] ?? this.call(connectMs),
        input,
        init,
      );
  }

  /** An SDK request's `fetchOptions` that make sdkFetch serve it as `call`. */
  fetchOptions(call: ConnectCall): RequestInit {
    return { [CONNECT_CALL]: call } as RequestInit;
  }

  /**
   * Closes this pool's own connections; calls still in flight on them fail, and a later call opens
   * new ones. Idle connections of the platform fetch are shared and keep no process alive.
   */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    this.http?.close();
    await Promise.all(agents.map((a) => a.destroy()));
  }

  private agent(undici: UndiciModule, connectMs: number): Agent {
    let agent = this.agents.get(connectMs);
    if (agent !== undefined) {
      // Re-inserted so the map's order is least recently used first.
      this.agents.delete(connectMs);
      this.agents.set(connectMs, agent);
      return agent;
    }
    if (this.agents.size >= MAX_POOLS) {
      const [oldestMs, oldest] = this.agents.entries().next().value as [number, Agent];
      this.agents.delete(oldestMs);
      // Graceful: calls already using it finish; it takes no new ones.
      void oldest.close().catch(() => {});
    }
    agent = new undici.Agent({ connect: { timeout: connectMs } });
    this.agents.set(connectMs, agent);
    return agent;
  }
}
