import { ConfigurationError } from "./errors.js";
import {
  type CompleteNext,
  composeComplete,
  composeStream,
  type Middleware,
  type StreamNext,
} from "./middleware.js";
import type { AdapterOptions, ProviderAdapter } from "./providers/adapter.js";
import type { Request, Response, StreamEvent } from "./types/index.js";

export interface ClientOptions {
  /** Adapters by the name requests route to (`request.provider`). */
  readonly providers: Readonly<Record<string, ProviderAdapter>>;
  /** Where requests without `provider` go; the first registered provider when absent. */
  readonly defaultProvider?: string;
  /** Applied in order: the first is outermost (see Middleware). */
  readonly middleware?: readonly Middleware[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** An adapter that loads its module (and so its SDK) on first use. */
export interface LazyAdapter extends ProviderAdapter {
  /** Loads and constructs the real adapter (once); later calls return the same one. */
  load(): Promise<ProviderAdapter>;
}

/** Wraps a loader so nothing is imported until the adapter is first used. */
export function lazyAdapter(name: string, load: () => Promise<ProviderAdapter>): LazyAdapter {
  let loaded: ProviderAdapter | undefined;
  let loading: Promise<ProviderAdapter> | undefined;
  const get = (): Promise<ProviderAdapter> => {
    loading ??= load().then(
      (adapter) => {
        loaded = adapter;
        return adapter;
      },
      (err: unknown) => {
        // A failed import may be transient (a file being replaced); let the next call try again.
        loading = undefined;
        throw err;
      },
    );
    return loading;
  };
  return {
    name,
    load: get,
    complete: async (request) => (await get()).complete(request),
    stream: (request) =>
      (async function* () {
        yield* (await get()).stream(request);
      })(),
    supportsToolChoice: (mode) => loaded?.supportsToolChoice?.(mode) ?? true,
    close: async () => {
      if (loading !== undefined) await (await loading).close?.();
    },
  };
}

type AdapterConstructor = new (options: AdapterOptions) => ProviderAdapter;

/** Provider name, whether the environment enables it, and how to load its adapter. */
const ENV_PROVIDERS: readonly {
  readonly name: string;
  readonly enabled: (env: Env) => boolean;
  /** A literal import each, so bundlers see every adapter module and keep it loaded on demand. */
  readonly load: () => Promise<Record<string, unknown>>;
  readonly exportName: string;
}[] = [
  {
    name: "anthropic",
    enabled: (env) => Boolean(env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN),
    load: () => import("./providers/anthropic/index.js"),
    exportName: "AnthropicAdapter",
  },
  {
    name: "openai",
    enabled: (env) => Boolean(env.OPENAI_API_KEY),
    load: () => import("./providers/openai/index.js"),
    exportName: "OpenAIAdapter",
  },
  {
    name: "gemini",
    enabled: (env) => Boolean(env.GEMINI_API_KEY || env.GOOGLE_API_KEY),
    load: () => import("./providers/gemini/index.js"),
    exportName: "GeminiAdapter",
  },
  {
    name: "openai-compatible",
    enabled: (env) => Boolean(env.OPENAI_COMPATIBLE_BASE_URL),
    load: () => import("./providers/openai-compatible/index.js"),
    exportName: "OpenAICompatibleAdapter",
  },
];

async function loadAdapter(provider: (typeof ENV_PROVIDERS)[number], env: Env): Promise<ProviderAdapter> {
  const ctor = (await provider.load())[provider.exportName];
  if (typeof ctor !== "function") {
    throw new ConfigurationError(
      `the ${provider.name} adapter module does not export ${provider.exportName}`,
    );
  }
  return new (ctor as AdapterConstructor)({ env });
}

/**
 * Routes requests to provider adapters, through the middleware. Holds no state between
 * requests and never retries: retrying is the caller's policy (see retry.ts).
 */
export class Client {
  /** The provider used when a request names none; undefined when no provider is registered. */
  readonly defaultProvider: string | undefined;
  private readonly adapters: ReadonlyMap<string, ProviderAdapter>;
  private readonly completeChain: CompleteNext;
  private readonly streamChain: StreamNext;

  constructor(options: ClientOptions) {
    this.adapters = new Map(Object.entries(options.providers));
    const first = this.adapters.keys().next();
    this.defaultProvider = options.defaultProvider ?? (first.done ? undefined : first.value);
    if (options.defaultProvider !== undefined && !this.adapters.has(options.defaultProvider)) {
      throw new ConfigurationError(
        `default provider "${options.defaultProvider}" is not registered (registered: ${this.registered()})`,
      );
    }
    const middleware = options.middleware ?? [];
    this.completeChain = composeComplete(middleware, (request) =>
      this.adapter(request.provider).complete(request),
    );
    this.streamChain = composeStream(middleware, (request) => this.adapter(request.provider).stream(request));
  }

  /**
   * A client with an adapter for each provider whose key is set in `env`, in the order anthropic,
   * openai, gemini (the first is the default), plus openai-compatible when
   * OPENAI_COMPATIBLE_BASE_URL is set. Adapters load their modules and SDKs on first use.
   */
  static fromEnv(env: Env = process.env, options: Omit<ClientOptions, "providers"> = {}): Client {
    const providers: Record<string, ProviderAdapter> = {};
    for (const p of ENV_PROVIDERS) {
      if (p.enabled(env)) providers[p.name] = lazyAdapter(p.name, () => loadAdapter(p, env));
    }
    return new Client({ ...options, providers });
  }

  /** The registered provider names, in registration order. */
  get providers(): readonly string[] {
    return [...this.adapters.keys()];
  }

  /** The adapter a request naming `provider` (or none) goes to; ConfigurationError when there is none. */
  adapter(provider?: string): ProviderAdapter {
    const name = provider ?? this.defaultProvider;
    if (name === undefined) {
      throw new ConfigurationError(
        "no provider: the request names none and the client has no default (set an API key or pass providers)",
      );
    }
    const adapter = this.adapters.get(name);
    if (adapter === undefined) {
      throw new ConfigurationError(`unknown provider "${name}" (registered: ${this.registered()})`);
    }
    return adapter;
  }

  /** Sends the request through the middleware to its adapter and waits for the whole response. */
  complete(request: Request): Promise<Response> {
    try {
      return this.completeChain(request);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Streams the response. Returns at once; routing errors and provider errors are thrown by the
   * iterator. The stream ends with `finish` and is never retried.
   */
  stream(request: Request): AsyncIterable<StreamEvent> {
    const chain = this.streamChain;
    return {
      [Symbol.asyncIterator]: () => {
        // Building the chain may throw (unknown provider); defer it into the first next().
        let inner: AsyncIterator<StreamEvent> | undefined;
        const open = () => {
          inner ??= chain(request)[Symbol.asyncIterator]();
          return inner;
        };
        return {
          next: () => {
            try {
              return open().next();
            } catch (err) {
              return Promise.reject(err);
            }
          },
          return: async (value?: unknown) => {
            await inner?.return?.(value);
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  /** Closes every adapter. */
  async close(): Promise<void> {
    await Promise.all([...this.adapters.values()].map((a) => a.close?.()));
  }

  private registered(): string {
    return this.adapters.size === 0 ? "none" : [...this.adapters.keys()].join(", ");
  }
}
