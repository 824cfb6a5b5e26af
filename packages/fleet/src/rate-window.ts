import type { Redis } from "ioredis";

/** A provider's limit, shared by every worker on one Redis: model requests and tokens per window. */
export interface ProviderLimit {
  /** Requests that may start per window (no limit when absent). */
  readonly requests?: number;
  /** Tokens (input, cache and output, as the responses report them) per window (no limit when absent). */
  readonly tokens?: number;
}

/** The window limits are counted over: a minute. */
export const LIMIT_WINDOW_MS = 60_000;

/**
 * KEYS: the current window's hash, the previous one's. ARGV: now, window start, window length,
 * request limit (0: none), token limit (0: none).
 * The use of the last window-length is estimated the usual sliding-window way (the previous
 * window's count weighted by how much of it still overlaps, plus the current window's). A request
 * starts when one more request and the tokens spent so far stay within the limits; then it is
 * counted (returns 0). Otherwise returns how many ms to wait before asking again.
 */
const ACQUIRE = `
local now, start, len = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local maxR, maxT = tonumber(ARGV[4]), tonumber(ARGV[5])
local curR = tonumber(redis.call('HGET', KEYS[1], 'requests') or '0')
local curT = tonumber(redis.call('HGET', KEYS[1], 'tokens') or '0')
local prevR = tonumber(redis.call('HGET', KEYS[2], 'requests') or '0')
local prevT = tonumber(redis.call('HGET', KEYS[2], 'tokens') or '0')
local weight = 1 - (now - start) / len
-- ms until prev * weight + cur <= limit: the end of the window when cur alone is over.
local function waitFor(prev, cur, limit)
  if cur > limit then return start + len - now end
  if prev * weight + cur <= limit then return 0 end
  local w = (limit - cur) / prev
  return math.max(start + len * (1 - w) - now, 1)
end
local wait = 0
-- One more request must fit; the tokens spent so far must be under the limit (a request's own
-- tokens are known only once it has been answered).
if maxR > 0 then wait = math.max(wait, waitFor(prevR, curR, maxR - 1)) end
if maxT > 0 then wait = math.max(wait, waitFor(prevT, curT, maxT - 1)) end
if wait > 0 then return math.ceil(wait) end
redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('PEXPIRE', KEYS[1], len * 2 + 1000)
return 0
`;

/** Rejects with the signal's reason once it aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

const windowKeys = (provider: string, now: number, windowMs: number) => {
  const start = Math.floor(now / windowMs) * windowMs;
  const key = (s: number) => `attractor-fleet:limit:${provider}:${windowMs}:${s}`;
  return { start, current: key(start), previous: key(start - windowMs) };
};

/**
 * Waits until a request to `provider` may start under `limit`, counted in Redis across every
 * worker, then counts it. Resolves to the milliseconds waited; rejects with the abort reason
 * when `signal` aborts.
 */
export async function acquireRequest(
  redis: Redis,
  provider: string,
  limit: ProviderLimit,
  windowMs = LIMIT_WINDOW_MS,
  signal?: AbortSignal,
): Promise<number> {
  const started = Date.now();
  const gaveUp = signal === undefined ? undefined : aborted(signal);
  gaveUp?.catch(() => undefined);
  for (;;) {
    signal?.throwIfAborted();
    const now = Date.now();
    const keys = windowKeys(provider, now, windowMs);
    const asked = redis.eval(
      ACQUIRE,
      2,
      keys.current,
      keys.previous,
      now,
      keys.start,
      windowMs,
      limit.requests ?? 0,
      limit.tokens ?? 0,
    );
    asked.catch(() => undefined);
    // A Redis that does not answer holds the request until the caller gives up, not for ever.
    const wait = Number(await (gaveUp === undefined ? asked : Promise.race([asked, gaveUp])));
    if (wait === 0) return Date.now() - started;
    // Others finish and windows roll meanwhile: ask again at least every second.
    await new Promise((r) => setTimeout(r, Math.min(wait, 1_000)));
  }
}

/** Counts the tokens a response to `provider` reported, in the window it ended in. */
export async function spendTokens(
  redis: Redis,
  provider: string,
  tokens: number,
  windowMs = LIMIT_WINDOW_MS,
): Promise<void> {
  if (tokens <= 0) return;
  const keys = windowKeys(provider, Date.now(), windowMs);
  await redis
    .multi()
    .hincrby(keys.current, "tokens", Math.round(tokens))
    .pexpire(keys.current, windowMs * 2 + 1_000)
    .exec();
}

/** What a provider's window holds now: requests started and tokens spent in the current window. */
export async function windowUse(
  redis: Redis,
  provider: string,
  windowMs = LIMIT_WINDOW_MS,
): Promise<{ requests: number; tokens: number }> {
  const keys = windowKeys(provider, Date.now(), windowMs);
  const [requests, tokens] = await redis.hmget(keys.current, "requests", "tokens");
  return { requests: Number(requests ?? 0), tokens: Number(tokens ?? 0) };
}
