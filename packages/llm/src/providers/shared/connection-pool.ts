import { AsyncLocalStorage } from "node:async_hooks";
import type { Agent } from "undici";
import { ConnectTimeoutError } from "../../errors.js";

/** The `undici` package's module shape; a type only, so importing this file never loads it. */
export type UndiciModule = typeof import("undici");

let loading: Promise<UndiciModule> | undefined;

/** Loads undici on first use, next to the SDK, so importing this package never loads it. */
export function loadUndici(): Promise<UndiciModule> {
  loading ??= import("undici").catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** One call's connection settings, and the connect timeout it ran into, if any. */
export interface ConnectCall {
  readonly provider: string;
  readonly connectMs: number;
  readonly dispatcher: Agent;
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
 * One adapter's connections: an undici Agent per connect timeout in use (normally just one), so
 * calls reuse kept-alive connections, and a new connection that is not up within the call's
 * `connectMs` fails as ConnectTimeoutError. Request and stream-read deadlines stay the adapters'.
 */
export class ConnectionPool {
  private readonly agents = new Map<number, Agent>();

  constructor(
    private readonly undici: UndiciModule,
    private readonly provider: string,
  ) {}

  /** A fresh record for one call, bound to the Agent for its connect timeout. */
  call(connectMs: number): ConnectCall {
    return { provider: this.provider, connectMs, dispatcher: this.agent(connectMs) };
  }

  /** undici's fetch through the call's Agent; a connect timeout is thrown as, and recorded as, ConnectTimeoutError. */
  async fetch(call: ConnectCall, input: string | URL | Request, init?: RequestInit): Promise<Response> {
    try {
      const res = await this.undici.fetch(input as never, { ...init, dispatcher: call.dispatcher } as never);
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

  /** Closes every connection; calls still in flight fail, and a later call opens new ones. */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.destroy()));
  }

  private agent(connectMs: number): Agent {
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
    agent = new this.undici.Agent({ connect: { timeout: connectMs } });
    this.agents.set(connectMs, agent);
    return agent;
  }
}

/** Loads undici and opens an adapter's pool; a failed load is retried by the next call. */
export const openConnectionPool = async (provider: string): Promise<ConnectionPool> =>
  new ConnectionPool(await loadUndici(), provider);
