import type { RateLimitInfo } from "../../types/index.js";

const num = (v: string | null | undefined): number | undefined => {
  if (v === null || v === undefined || v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

/** Reads the informational x-ratelimit-* headers (OpenAI and Anthropic spellings); undefined when none. */
export function rateLimitFromHeaders(
  headers: { get(name: string): string | null } | undefined,
): RateLimitInfo | undefined {
  if (!headers) return undefined;
  const h = (...names: string[]) =>
    names.map((n) => headers.get(n)).find((v) => v !== null && v !== undefined);
  const info: { -readonly [K in keyof RateLimitInfo]: RateLimitInfo[K] } = {};
  const set = <K extends keyof RateLimitInfo>(k: K, v: RateLimitInfo[K] | undefined) => {
    if (v !== undefined) info[k] = v;
  };
  set(
    "requestsRemaining",
    num(h("x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining")),
  );
  set("requestsLimit", num(h("x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit")));
  set("tokensRemaining", num(h("x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining")));
  set("tokensLimit", num(h("x-ratelimit-limit-tokens", "anthropic-ratelimit-tokens-limit")));
  set("resetAt", h("x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset") ?? undefined);
  return Object.keys(info).length === 0 ? undefined : info;
}
