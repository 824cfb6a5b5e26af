import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import type { Dispatcher } from "undici";
import { ToolError } from "../shared/tool-errors.js";
import { type NonPublicKind, nonPublicKind } from "./address-check.js";

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to its addresses (DNS by default; tests give their own). */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** A fetch about to connect to an address off the public internet, for the host to allow or refuse. */
export interface NonPublicTarget {
  readonly url: string;
  readonly host: string;
  readonly address: string;
  readonly kind: NonPublicKind;
}

export interface FetchPageOptions {
  readonly lookup?: HostLookup;
  /** Whether a loopback, private or link-local address may be fetched; refused when absent. */
  readonly allowNonPublic?: (target: NonPublicTarget) => boolean | Promise<boolean>;
  /** Bytes of body kept; past it the body is cut and `truncated` set. */
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** Same-host redirects followed before giving up. */
  readonly maxRedirects: number;
  readonly signal?: AbortSignal;
  /** Variables proxies are read from (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); the process's by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What a fetch came to: a page (of any status), or a redirect to another host, not followed. */
export type FetchOutcome =
  | {
      readonly kind: "page";
      readonly url: string;
      readonly status: number;
      readonly contentType: string;
      readonly body: Uint8Array;
      readonly truncated: boolean;
    }
  | { readonly kind: "redirect"; readonly url: string; readonly location: string; readonly status: number };

/** A fetch that failed before a page came back; `code` says why. */
export class WebFetchError extends ToolError {
  override readonly name = "WebFetchError";
}

const defaultLookup: HostLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

let undici: Promise<typeof import("undici")> | undefined;
/** undici is loaded on the first fetch: sessions that never fetch a page never parse it. */
const loadUndici = (): Promise<typeof import("undici")> => {
  undici ??= import("undici").then((mod) =>
    "Agent" in mod ? mod : (mod as { default: typeof import("undici") }).default,
  );
  return undici;
};

/** The proxy variable that applies to a URL's scheme, when one is set. */
function proxyFor(url: URL, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const get = (name: string) => env[name] ?? env[name.toLowerCase()];
  const proxy = url.protocol === "https:" ? get("HTTPS_PROXY") : get("HTTP_PROXY");
  return proxy !== undefined && proxy !== "" ? proxy : undefined;
}

/** A lookup for the connection that answers with the addresses already checked, never asking DNS again. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all)
      callback(
        null,
        addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, addresses[0]?.address, addresses[0]?.family);
  }) as unknown as LookupFunction;
}

/**
 * The addresses a URL's host resolves to, each checked: an address off the public internet is
 * connected to only when `allowNonPublic` says so. Throws WebFetchError otherwise.
 */
async function checkedAddresses(url: URL, options: FetchPageOptions): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = [...(await (options.lookup ?? defaultLookup)(host))];
    } catch (err) {
      throw new WebFetchError("dns_failed", `Could not resolve ${host}: ${(err as Error).message}`);
    }
    if (addresses.length === 0) throw new WebFetchError("dns_failed", `${host} resolves to no address.`);
  }
  for (const a of addresses) {
    const kind = nonPublicKind(a.address);
    if (kind === undefined) continue;
    const allowed =
      (await options.allowNonPublic?.({ url: url.href, host, address: a.address, kind })) ?? false;
    if (!allowed)
      throw new WebFetchError(
        "non_public_address",
        `Refused: ${host} resolves to ${a.address}, a ${kind} address, and fetching it was not allowed.`,
      );
  }
  return addresses;
}

async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy(): unknown },
  maxBytes: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.byteLength > room) {
      chunks.push(chunk.subarray(0, room));
      size += room;
      body.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/**
 * GETs a URL: each hop's host resolved and its addresses checked before connecting to exactly
 * those addresses (so a name cannot smuggle a private address past the check), redirects within
 * the same host followed, a redirect to another host returned rather than followed, the body cut
 * at maxBytes, the whole fetch bounded by timeoutMs. Proxies come from HTTPS_PROXY / HTTP_PROXY /
 * NO_PROXY. Throws WebFetchError for what stops it (bad URL, DNS, refusal, timeout, network).
 */
export async function fetchPage(target: string, options: FetchPageOptions): Promise<FetchOutcome> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new WebFetchError("invalid_url", `Not a valid URL: ${target}`);
  }
  const { Agent, EnvHttpProxyAgent, request } = await loadUndici();
  const env = options.env ?? process.env;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new WebFetchError("invalid_url", `Only http and https URLs can be fetched, not ${url.protocol}`);
    if (url.username !== "" || url.password !== "")
      throw new WebFetchError("invalid_url", "URLs with credentials in them are not fetched.");
    const addresses = await checkedAddresses(url, options);
    // Through a proxy the proxy resolves the name; without one the connection goes to the
    // addresses just checked.
    const dispatcher: Dispatcher =
      proxyFor(url, env) !== undefined
        ? new EnvHttpProxyAgent({
            ...((env.HTTP_PROXY ?? env.http_proxy) ? { httpProxy: env.HTTP_PROXY ?? env.http_proxy } : {}),
            ...((env.HTTPS_PROXY ?? env.https_proxy)
              ? { httpsProxy: env.HTTPS_PROXY ?? env.https_proxy }
              : {}),
            ...((env.NO_PROXY ?? env.no_proxy) ? { noProxy: env.NO_PROXY ?? env.no_proxy } : {}),
          })
        : new Agent({ connect: { lookup: pinnedLookup(addresses) } });
    try {
      const res = await request(url, {
        method: "GET",
        dispatcher,
        signal,
        headers: {
          "user-agent": "attractor-web-fetch/1",
          accept: "text/html,application/xhtml+xml,text/markdown,text/plain,application/json,*/*;q=0.8",
        },
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === "string") {
        await res.body.dump();
        const next = new URL(location, url);
        if (next.hostname !== url.hostname)
          return { kind: "redirect", url: url.href, location: next.href, status: res.statusCode };
        if (hop >= options.maxRedirects)
          throw new WebFetchError(
            "too_many_redirects",
            `Stopped after ${options.maxRedirects} redirects at ${url.href}.`,
          );
        url = next;
        continue;
      }
      const type = res.headers["content-type"];
      const { body, truncated } = await readCapped(res.body, options.maxBytes);
      return {
        kind: "page",
        url: url.href,
        status: res.statusCode,
        contentType: (Array.isArray(type) ? type[0] : type) ?? "",
        body,
        truncated,
      };
    } catch (err) {
      if (err instanceof WebFetchError) throw err;
      if (timeout.aborted)
        throw new WebFetchError("timeout", `Fetching ${url.href} took longer than ${options.timeoutMs} ms.`);
      if (options.signal?.aborted) throw new WebFetchError("aborted", `Fetching ${url.href} was aborted.`);
      throw new WebFetchError("network", `Could not fetch ${url.href}: ${(err as Error).message}`);
    } finally {
      void dispatcher.destroy().catch(() => {});
    }
  }
}
