import { AsyncLocalStorage } from "node:async_hooks";
import type { Agent } from "undici";
import { ConnectTimeoutError } from "../../errors.js";

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

/** undici's code for a connection not established within the connector's timeout. */
const CONNECT_TIMEOUT_CODE = "UND_ERR_CONNECT_TIMEOUT";

/** Whether `err` or an error in its cause chain is undici's connect timeout. */
export function isConnectTimeout(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === CONNECT_TIMEOUT_CODE) return true;
  }
  return false;
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

/** The call whose SDK request is running; the SDKs call our fetch without passing anything of ours. */
const currentCall = new AsyncLocalStorage<ConnectCall>();

/** Most connect timeouts an adapter keeps a pool for; each distinct value gets its own Agent. */
const MAX_POOLS = 8;

/**
 * One adapter's connections. Calls with the platform's connect timeout go through the platform
 * fetch and its shared connection pool; any other timeout gets an undici Agent of this pool's
 * (one per value in use), so calls reuse kept-alive connections. Either way a new connection that
 * is not up within the call's `connectMs` fails as ConnectTimeoutError. Request and stream-read
 * deadlines stay the adapters'.
 */
export class ConnectionPool {
  private readonly agents = new Map<number, Agent>();

  constructor(private readonly provider: string) {}

  /** A fresh record for one call with this connect timeout. */
  call(connectMs: number): ConnectCall {
    return { provider: this.provider, connectMs };
  }

  /** Fetches through the call's connections; a connect timeout is thrown as, and recorded as, ConnectTimeoutError. */
  async fetch(call: ConnectCall, input: string | URL | Request, init?: RequestInit): Promise<Response> {
    try {
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
   * A fetch for an SDK client, which calls it with nothing of ours: it serves the call running
   * in `runCall` (the one that records a connect timeout), or a call with `connectMs` otherwise.
   */
  sdkFetch(connectMs: number): typeof globalThis.fetch {
    return (input, init) => this.fetch(currentCall.getStore() ?? this.call(connectMs), input, init);
  }

  /** Runs `fn` (an SDK request) as `call`, so that sdkFetch uses its Agent and records its failure. */
  runCall<T>(call: ConnectCall, fn: () => T): T {
    return currentCall.run(call, fn);
  }

  /**
   * Closes this pool's own connections; calls still in flight on them fail, and a later call opens
   * new ones. Idle connections of the platform fetch are shared and keep no process alive.
   */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
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
