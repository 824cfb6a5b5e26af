import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from "node:http";
import type { Agent as HttpsAgent } from "node:https";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/**
 * A `fetch` over node:http and node:https for the official SDKs, which take a custom fetch. The
 * platform fetch builds a Request, validates every header, copies the body into a web stream and
 * hands the response back through another: about a millisecond of a tool round's CPU on a
 * 100 KB conversation. This one writes the body as it is and gives the response body as an async
 * iterable of bytes, which is how the SDKs read it. Requests it cannot send as plain bytes (a
 * Request object, a stream or form body) are left to the platform fetch by the caller.
 */

/**
 * node:https, loaded by the first https request: it brings Node's TLS (about 3 ms of a start),
 * which a run against an http endpoint (a local model, a proxy on loopback) never uses.
 */
let httpsModule: typeof import("node:https") | undefined;
const nodeHttps = () => {
  httpsModule ??= createRequire(import.meta.url)("node:https") as typeof import("node:https");
  return httpsModule;
};

/** The `code` of the error a connection that is not up within the call's connect timeout fails with. */
export const HTTP_CONNECT_TIMEOUT_CODE = "ERR_CONNECT_TIMEOUT";

/** The fetch standard's limit on redirects followed for one request. */
const MAX_REDIRECTS = 20;
/** How long an idle kept-alive connection stays open, unless the server hints at less. */
const IDLE_SOCKET_MS = 4_000;
/**
 * Headers that carry credentials: dropped when a redirect leaves the origin, so an API key never
 * goes to a host it was not given for (fetch itself drops only `authorization`).
 */
const CREDENTIAL_HEADERS = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
] as const;

/** One request this transport can send: a URL, headers and a body of plain bytes. */
export interface HttpRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | undefined;
  readonly redirect: "follow" | "manual" | "error";
  readonly signal: AbortSignal | undefined;
}

const EMPTY_BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/**
 * The request `fetch(input, init)` describes, or undefined when it is not one this transport
 * sends (a Request object as input, a streamed, form or blob body): those go to the platform fetch.
 */
export function plainRequest(
  input: string | URL | Request,
  init: RequestInit | undefined,
): HttpRequest | undefined {
  if (typeof input !== "string" && !(input instanceof URL)) return undefined;
  const body = plainBody(init?.body);
  if (body === null) return undefined;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const headers = headerRecord(init?.headers);
  if (headers === undefined) return undefined;
  // What fetch gives a string body that has no type of its own.
  if (typeof init?.body === "string" && headers["content-type"] === undefined) {
    headers["content-type"] = "text/plain;charset=UTF-8";
  }
  const method = (init?.method ?? "GET").toUpperCase();
  if (body !== undefined && (method === "GET" || method === "HEAD")) return undefined;
  return {
    url,
    method,
    headers,
    body,
    redirect: init?.redirect ?? "follow",
    signal: init?.signal ?? undefined,
  };
}

/** The body as bytes; undefined for none, null for a kind this transport does not send. */
function plainBody(body: RequestInit["body"] | undefined): Uint8Array | undefined | null {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return null;
}

/** The headers as one lower-cased record, or undefined for a shape this transport does not read. */
function headerRecord(headers: RequestInit["headers"] | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  if (headers === undefined || headers === null) return out;
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  };
  // Any Headers object, without naming the global class: touching it loads Node's whole fetch.
  if (typeof (headers as Headers).entries === "function" && typeof (headers as Headers).get === "function") {
    for (const [name, value] of (headers as Headers).entries()) add(name, value);
  } else if (Array.isArray(headers)) {
    for (const pair of headers) {
      if (pair.length !== 2) return undefined;
      add(String(pair[0]), String(pair[1]));
    }
  } else if (typeof headers === "object") {
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined && value !== null) add(name, String(value));
    }
  } else return undefined;
  return out;
}

/**
 * Kept-alive connections for one adapter, over which requests are sent. Each call has its own
 * connect timeout: a new connection (TCP and TLS) that is not up within it fails the call.
 */
export class HttpTransport {
  private httpAgent: HttpAgent | undefined;
  private httpsAgent: HttpsAgent | undefined;

  /** `idleMs`: how long an idle kept-alive connection stays open, unless the server hints at less. */
  constructor(private readonly idleMs = IDLE_SOCKET_MS) {}

  /** Sends `request`, following redirects as fetch does; resolves once the response's headers are in. */
  async fetch(request: HttpRequest, connectMs: number): Promise<Response> {
    let current = request;
    for (let redirects = 0; ; redirects++) {
      const res = await this.send(current, connectMs);
      const next = current.redirect === "manual" ? undefined : redirectOf(current, res);
      if (next === undefined) return new HttpResponse(current, res, redirects > 0) as unknown as Response;
      res.resume();
      if (current.redirect === "error")
        throw new TypeError("fetch failed", { cause: new Error("unexpected redirect") });
      if (redirects >= MAX_REDIRECTS) {
        throw new TypeError("fetch failed", { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) });
      }
      current = next;
    }
  }

  /** Closes the pooled connections; requests in flight on them fail. */
  close(): void {
    this.httpAgent?.destroy();
    this.httpsAgent?.destroy();
    this.httpAgent = undefined;
    this.httpsAgent = undefined;
  }

  private send(request: HttpRequest, connectMs: number): Promise<IncomingMessage> {
    const { url, method, body, signal } = request;
    return new Promise<IncomingMessage>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const secure = url.protocol === "https:";
      const headers: OutgoingHttpHeaders = {
        accept: "*/*",
        "accept-encoding": "gzip, deflate, br",
        ...request.headers,
      };
      if (body !== undefined) headers["content-length"] = body.byteLength;
      else if (EMPTY_BODY_METHODS.has(method)) headers["content-length"] = 0;
      const options = { method, headers, agent: secure ? this.https() : this.http() };
      const req: ClientRequest = secure ? nodeHttps().request(url, options) : httpRequest(url, options);
      let settled = false;
      const onAbort = () => req.destroy(signal?.reason);
      const fail = (err: unknown) => {
        signal?.removeEventListener("abort", onAbort);
        if (settled) return;
        settled = true;
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: err }));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      req.once("socket", (socket) => {
        // The idle timeout of a kept-alive connection must not end a request waiting on a slow model.
        socket.setTimeout(0);
        if (!socket.connecting) return;
        const timer = setTimeout(() => req.destroy(connectTimeout(url, connectMs)), connectMs);
        const up = () => clearTimeout(timer);
        socket.once(secure ? "secureConnect" : "connect", up);
        socket.once("close", up);
      });
      // Every error, also one after the response (a socket error reaches the request too): the body
      // reports its own through the reply, and an unheard request error would end the process.
      req.on("error", fail);
      req.once("response", (res) => {
        settled = true;
        // From here the response's own listener ends the body on an abort, and only until it is in.
        signal?.removeEventListener("abort", onAbort);
        resolve(res);
      });
      req.end(body);
    });
  }

  private http(): HttpAgent {
    this.httpAgent ??= new HttpAgent({ keepAlive: true, timeout: this.idleMs, scheduling: "lifo" });
    return this.httpAgent;
  }

  private https(): HttpsAgent {
    this.httpsAgent ??= new (nodeHttps().Agent)({
      keepAlive: true,
      timeout: this.idleMs,
      scheduling: "lifo",
    });
    return this.httpsAgent;
  }
}

function connectTimeout(url: URL, connectMs: number): Error {
  return Object.assign(new Error(`no connection to ${url.host} within ${connectMs} ms`), {
    code: HTTP_CONNECT_TIMEOUT_CODE,
  });
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The request a redirect response leads to, as fetch would make it, or undefined when `res` is none. */
function redirectOf(request: HttpRequest, res: IncomingMessage): HttpRequest | undefined {
  const location = res.headers.location;
  if (!REDIRECT_STATUSES.has(res.statusCode ?? 0) || location === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(location, request.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const status = res.statusCode ?? 0;
  const toGet =
    (status === 303 && request.method !== "HEAD") ||
    ((status === 301 || status === 302) && request.method === "POST");
  const headers = { ...request.headers };
  if (toGet) {
    for (const name of ["content-type", "content-encoding", "content-language", "content-location"])
      delete headers[name];
  }
  if (url.origin !== request.url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
  return {
    ...request,
    url,
    headers,
    method: toGet ? "GET" : request.method,
    body: toGet ? undefined : request.body,
  };
}

/** The response's body bytes, decompressed as its content-encoding says. */
function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return res;
  res.on("error", (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

/** Every chunk of `chunks`, as one buffer. */
async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

/**
 * The body of an HttpResponse: an async iterable of bytes (what the SDKs read), with the parts of a
 * ReadableStream they may touch besides: `getReader()`, `cancel()`, `locked`.
 */
class HttpBody implements AsyncIterable<Uint8Array> {
  private used = false;

  constructor(
    private source: Readable,
    private readonly signal: AbortSignal | undefined,
    private readonly release: () => void,
    /** The reply the bytes come from; undefined for a clone's replay. */
    private readonly reply?: IncomingMessage,
  ) {}

  /** Whether reading has begun (the body can then not be read again, nor cloned). */
  get locked(): boolean {
    return this.used;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.used) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    return this.chunks();
  }

  /** Reads through a reader, as a ReadableStream's consumer would. */
  getReader() {
    const chunks = this[Symbol.asyncIterator]();
    return {
      read: () => chunks.next(),
      releaseLock: () => {},
      cancel: async () => {
        await chunks.return?.();
      },
      closed: Promise.resolve(undefined),
    };
  }

  /** Stops reading and closes the connection the body was coming over. */
  async cancel(): Promise<void> {
    this.used = true;
    this.source.destroy();
    this.release();
  }

  /**
   * Splits the unread body in two, this one and the returned copy; each sees every byte. Clones
   * serve error bodies, so the body is read whole first rather than streamed to two readers, one
   * of which could hold the other back.
   */
  tee(): Readable {
    if (this.used) throw new TypeError("Response.clone: Body has already been consumed.");
    const whole = readAll(this.source);
    whole.catch(() => {});
    const replay = () =>
      Readable.from(
        (async function* () {
          yield await whole;
        })(),
        { objectMode: false },
      );
    this.source = replay();
    return replay();
  }

  /** The whole body, read at once. */
  bytes(): Promise<Uint8Array> {
    return readAll(this);
  }

  private async *chunks(): AsyncGenerator<Uint8Array> {
    let done = false;
    try {
      // Not the stream's own iterator, which destroys the stream (and its connection) on an early exit.
      for await (const chunk of this.source.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
      done = true;
    } catch (err) {
      // Like fetch: an aborted body throws the signal's reason, a cut connection "terminated".
      throw this.signal?.aborted ? this.signal.reason : new TypeError("terminated", { cause: err });
    } finally {
      // A consumer that stops early (an SDK stops at its last event) keeps the connection for the
      // next request when the whole reply is in; with bytes still to come it must close it.
      if (!done) {
        if (this.reply?.complete === true) this.source.resume();
        else this.source.destroy();
      }
      this.release();
    }
  }
}

/**
 * A response's headers, read-only as fetch's are, over the record node:http parsed (names lower
 * case, repeated fields joined by ", ", set-cookie kept apart): building a Headers object validates
 * and sorts every field again, for the few an SDK reads.
 */
class ResponseHeaders implements Iterable<[string, string]> {
  constructor(private readonly fields: IncomingMessage["headers"]) {}

  get(name: string): string | null {
    const value = this.fields[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    return this.fields[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    const value = this.fields["set-cookie"];
    return value === undefined ? [] : [...value];
  }

  /** Name and value pairs in name order, set-cookie once per cookie, as Headers gives them. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.fields).sort()) {
      if (name === "set-cookie") for (const cookie of this.getSetCookie()) yield [name, cookie];
      else yield [name, this.get(name) as string];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: ResponseHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  append(): never {
    throw new TypeError("Headers of a response are immutable");
  }

  set(): never {
    throw new TypeError("Headers of a response are immutable");
  }

  delete(): never {
    throw new TypeError("Headers of a response are immutable");
  }
}

/** What a clone is built from besides the original response: nothing of the request. */
const CLONED = {} as HttpRequest;

/** A Response for a node:http reply; what the official SDKs use of one. */
class HttpResponse {
  readonly type = "basic";
  readonly url: string;
  readonly redirected: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly body: HttpBody | null;

  constructor(
    request: HttpRequest,
    res: IncomingMessage | undefined,
    redirected: boolean,
    clone?: { readonly from: HttpResponse; readonly source: Readable | undefined },
  ) {
    if (clone !== undefined) {
      const { from } = clone;
      this.url = from.url;
      this.redirected = from.redirected;
      this.status = from.status;
      this.statusText = from.statusText;
      this.ok = from.ok;
      this.headers = from.headers;
      this.body = clone.source === undefined ? null : new HttpBody(clone.source, undefined, () => {});
      return;
    }
    const reply = res as IncomingMessage;
    this.url = request.url.href;
    this.redirected = redirected;
    this.status = reply.statusCode ?? 0;
    this.statusText = reply.statusMessage ?? "";
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = new ResponseHeaders(reply.headers) as unknown as Headers;
    const signal = request.signal;
    const onAbort = () => reply.destroy(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const release = () => signal?.removeEventListener("abort", onAbort);
    const empty = request.method === "HEAD" || this.status === 204 || this.status === 304;
    if (empty) {
      reply.resume();
      release();
      this.body = null;
    } else {
      this.body = new HttpBody(decoded(reply), signal, release, reply);
    }
  }

  get bodyUsed(): boolean {
    return this.body?.locked ?? false;
  }

  /** The body as bytes. */
  async bytes(): Promise<Uint8Array> {
    return this.body === null ? new Uint8Array(0) : this.body.bytes();
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get("content-type") ?? "" });
  }

  async formData(): Promise<never> {
    throw new TypeError("formData() is not supported on this response");
  }

  /** A second response over the same bytes; both bodies can be read in full. */
  clone(): HttpResponse {
    return new HttpResponse(CLONED, undefined, this.redirected, { from: this, source: this.body?.tee() });
  }
}
