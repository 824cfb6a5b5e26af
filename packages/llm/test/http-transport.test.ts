import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpTransport, plainRequest } from "../src/providers/shared/http-transport.js";

// The node:http fetch beneath the SDKs, against a real server on 127.0.0.1, with the platform
// fetch as the reference: for the same request both must give the same status, headers and body,
// and fail the same way.

interface Site {
  readonly url: string;
  readonly server: Server;
  /** Connections accepted so far. */
  connections: number;
  /** The last request's headers. */
  lastHeaders: IncomingMessage["headers"];
  close(): Promise<void>;
}

const TEXT = "héllo wörld ".repeat(2000);

async function startSite(
  route: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
): Promise<Site> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      site.lastHeaders = req.headers;
      route(req, res, Buffer.concat(chunks));
    });
  });
  server.on("connection", () => {
    site.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const site: Site = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    connections: 0,
    lastHeaders: {},
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return site;
}

let main: Site;
let other: Site;

function mainRoute(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const send = (status: number, headers: Record<string, string>, payload: Buffer | string = "") => {
    res.writeHead(status, headers);
    res.end(payload);
  };
  switch (path) {
    case "/echo":
      send(
        200,
        { "content-type": "application/json", "x-multi": "a", "set-cookie": "s=1" },
        JSON.stringify({ method: req.method, body: body.toString("utf8"), headers: req.headers }),
      );
      return;
    case "/gzip":
      send(200, { "content-encoding": "gzip" }, gzipSync(TEXT));
      return;
    case "/br":
      send(200, { "content-encoding": "br" }, brotliCompressSync(TEXT));
      return;
    case "/deflate":
      send(200, { "content-encoding": "deflate" }, deflateSync(TEXT));
      return;
    case "/307":
      send(307, { location: "/echo" });
      return;
    case "/303":
      send(303, { location: "/echo" });
      return;
    case "/cross":
      send(307, { location: `${other.url}/echo` });
      return;
    case "/loop":
      send(302, { location: "/loop" });
      return;
    case "/error":
      send(500, { "content-type": "application/json" }, JSON.stringify({ error: { message: "boom" } }));
      return;
    case "/empty":
      send(204, {});
      return;
    case "/cut":
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    case "/drip": {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const timer = setInterval(() => res.write("data: tick\n\n"), 10);
      res.on("close", () => clearInterval(timer));
      return;
    }
    case "/slow": {
      setTimeout(() => send(200, { "content-type": "text/plain" }, "late"), 300);
      return;
    }
    default:
      send(404, { "content-type": "text/plain" }, "no such path");
  }
}

beforeAll(async () => {
  main = await startSite(mainRoute);
  other = await startSite((req, res, body) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ method: req.method, body: body.toString("utf8"), headers: req.headers }));
  });
});
afterAll(async () => {
  await main.close();
  await other.close();
});

/** Our fetch: what ConnectionPool does for a request the transport can send. */
function ours(transport: HttpTransport, connectMs = 10_000): typeof fetch {
  return (input, init) => {
    const plain = plainRequest(input as string | URL, init);
    if (plain === undefined) throw new Error("not a plain request");
    return transport.fetch(plain, connectMs);
  };
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

/** What a response says, in a form two fetches can be compared on. */
async function summary(res: Response) {
  const headers = [...res.headers].filter(([name]) => !["date", "keep-alive", "connection"].includes(name));
  return {
    status: res.status,
    statusText: res.statusText,
    ok: res.ok,
    redirected: res.redirected,
    headers,
    text: await res.text(),
  };
}

describe("the node:http fetch, beside the platform fetch", () => {
  const transport = new HttpTransport();
  const fetchOurs = ours(transport);
  afterAll(() => transport.close());

  const CASES: readonly [string, RequestInit | undefined][] = [
    [
      "/echo",
      {
        method: "POST",
        body: JSON.stringify({ hi: "ünïcode" }),
        headers: { "content-type": "application/json" },
      },
    ],
    ["/echo", { method: "POST", body: new TextEncoder().encode("bytes body") }],
    ["/gzip", undefined],
    ["/br", undefined],
    ["/deflate", undefined],
    ["/303", { method: "POST", body: "dropped on 303", headers: { "content-type": "text/plain" } }],
    ["/307", { method: "POST", body: "kept on 307" }],
    ["/error", { method: "POST", body: "{}" }],
    ["/empty", undefined],
    ["/missing", undefined],
  ];

  it.each(CASES)("%s gives what fetch gives", async (path, init) => {
    const mine = await summary(await fetchOurs(`${main.url}${path}`, init));
    const reference = await summary(await fetch(`${main.url}${path}`, init));
    // The request headers each fetch adds of its own (user agent, browser-only fetch metadata)
    // differ by design; every other header the server saw must be the same.
    const strip = (s: typeof mine) => {
      if (!s.text.startsWith('{"method"')) return s;
      const echoed = JSON.parse(s.text) as { headers: Record<string, string> };
      for (const name of [
        "user-agent",
        "accept-language",
        "sec-fetch-mode",
        "accept-encoding",
        "connection",
        "host",
      ]) {
        delete echoed.headers[name];
      }
      return { ...s, text: echoed };
    };
    expect(strip(mine)).toEqual(strip(reference));
  });

  it("sends the body bytes as given, with their length and fetch's default accept headers", async () => {
    const body = JSON.stringify({ text: "x".repeat(100_000) });
    const res = await fetchOurs(`${main.url}/echo`, {
      method: "POST",
      body,
      headers: new Headers({ "Content-Type": "application/json", "X-Api-Key": "k" }),
    });
    const echoed = (await res.json()) as { body: string; headers: Record<string, string> };
    expect(echoed.body).toBe(body);
    expect(echoed.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(echoed.headers["x-api-key"]).toBe("k");
    expect(echoed.headers.accept).toBe("*/*");
    expect(echoed.headers["accept-encoding"]).toContain("gzip");
  });

  it("drops credentials on a redirect to another origin, as it must not leak an API key", async () => {
    const res = await fetchOurs(`${main.url}/cross`, {
      method: "POST",
      body: "payload",
      headers: { "x-api-key": "secret", authorization: "Bearer t", "content-type": "text/plain" },
    });
    const echoed = (await res.json()) as { body: string; headers: Record<string, string> };
    expect(res.redirected).toBe(true);
    expect(res.url).toBe(`${other.url}/echo`);
    expect(echoed.body).toBe("payload");
    expect(echoed.headers["x-api-key"]).toBeUndefined();
    expect(echoed.headers.authorization).toBeUndefined();
    expect(echoed.headers["content-type"]).toBe("text/plain");
  });

  it("stops after 20 redirects, and returns redirects untouched when asked to", async () => {
    const err = await failure(() => fetchOurs(`${main.url}/loop`));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe("fetch failed");
    const manual = await fetchOurs(`${main.url}/307`, { redirect: "manual" });
    expect(manual.status).toBe(307);
    expect(manual.headers.get("location")).toBe("/echo");
  });

  it("clones a response so every copy reads the whole body", async () => {
    const res = await fetchOurs(`${main.url}/error`, { method: "POST", body: "{}" });
    const copy = res.clone();
    const third = copy.clone();
    const text = await res.text();
    expect(text).toBe(JSON.stringify({ error: { message: "boom" } }));
    expect(await copy.text()).toBe(text);
    expect(await third.json()).toEqual({ error: { message: "boom" } });
    expect(() => res.clone()).toThrow(TypeError);
  });

  it("refuses a body read twice, as fetch does", async () => {
    const res = await fetchOurs(`${main.url}/gzip`);
    expect(await res.text()).toBe(TEXT);
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
  });

  it("fails a refused connection as fetch does: TypeError 'fetch failed' with the cause", async () => {
    const closed = await startSite(() => {});
    const url = closed.url;
    await closed.close();
    const mine = (await failure(() => fetchOurs(`${url}/echo`))) as TypeError;
    const reference = (await failure(() => fetch(`${url}/echo`))) as TypeError;
    expect(mine).toBeInstanceOf(TypeError);
    expect(mine.message).toBe(reference.message);
    expect((mine.cause as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("ends a body whose connection is cut with TypeError 'terminated', as fetch does", async () => {
    const read = async (res: Response) => {
      const chunks: string[] = [];
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
        chunks.push(decoder.decode(chunk));
      return chunks.join("");
    };
    const mine = (await failure(async () => read(await fetchOurs(`${main.url}/cut`)))) as TypeError;
    const reference = (await failure(async () => read(await fetch(`${main.url}/cut`)))) as TypeError;
    expect(mine).toBeInstanceOf(TypeError);
    expect(mine.message).toBe(reference.message);
  });

  it("rejects with the signal's reason when aborted before the headers and while reading the body", async () => {
    const early = new AbortController();
    const pending = fetchOurs(`${main.url}/slow`, { signal: early.signal });
    setTimeout(() => early.abort(), 20);
    const err = await failure(() => pending);
    expect(err).toBe(early.signal.reason);
    expect((err as Error).name).toBe("AbortError");

    const late = new AbortController();
    const res = await fetchOurs(`${main.url}/drip`, { signal: late.signal });
    const bodyErr = await failure(async () => {
      let n = 0;
      for await (const _ of res.body as unknown as AsyncIterable<Uint8Array>) if (++n === 3) late.abort();
    });
    expect(bodyErr).toBe(late.signal.reason);
  });

  it("reuses one kept-alive connection for sequential requests", async () => {
    const site = await startSite((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    const pooled = new HttpTransport();
    const f = ours(pooled);
    for (let i = 0; i < 5; i++)
      expect(await (await f(`${site.url}/`, { method: "POST", body: "x" })).text()).toBe("ok");
    expect(site.connections).toBe(1);
    pooled.close();
    await site.close();
  });

  it("keeps the connection when the reader stops at the last event of a whole reply, and an abort after that harms nothing", async () => {
    const site = await startSite((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end("event: message_start\ndata: {}\n\nevent: message_stop\ndata: {}\n\n");
    });
    const pooled = new HttpTransport();
    const f = ours(pooled);
    for (let i = 0; i < 4; i++) {
      const controller = new AbortController();
      const res = await f(`${site.url}/`, { method: "POST", body: "x", signal: controller.signal });
      for await (const _ of res.body as unknown as AsyncIterable<Uint8Array>) break;
      // What the SDKs do once their iteration stops early.
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(site.connections).toBe(1);
    pooled.close();
    await site.close();
  });

  it("keeps a connection open through a reply slower than the idle timeout, and closes it when idle", async () => {
    const quick = new HttpTransport(100);
    const f = ours(quick);
    expect(await (await f(`${main.url}/slow`)).text()).toBe("late");
    const before = main.connections;
    expect(await (await f(`${main.url}/slow`)).text()).toBe("late");
    expect(main.connections).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await (await f(`${main.url}/echo`)).text()).toContain("GET");
    expect(main.connections).toBe(before + 1);
    quick.close();
  });

  it("fails a connection that is not up within the connect timeout with its own code", async () => {
    const { startUnacceptingListener } = await import("./support/unaccepting-listener.js");
    const listener = await startUnacceptingListener();
    const started = Date.now();
    const err = (await failure(() => ours(new HttpTransport(), 200)(`${listener.url}/`))) as TypeError;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err.message).toBe("fetch failed");
    expect((err.cause as { code?: string }).code).toBe("ERR_CONNECT_TIMEOUT");
    await listener.close();
  });

  it("leaves requests it cannot send as bytes to the platform fetch", () => {
    expect(plainRequest(new Request(`${main.url}/echo`), undefined)).toBeUndefined();
    expect(plainRequest(`${main.url}/echo`, { method: "POST", body: new FormData() })).toBeUndefined();
    expect(
      plainRequest(`${main.url}/echo`, {
        method: "POST",
        body: new ReadableStream(),
        duplex: "half",
      } as RequestInit),
    ).toBeUndefined();
    expect(plainRequest("file:///etc/passwd", undefined)).toBeUndefined();
    expect(plainRequest(`${main.url}/echo`, { method: "POST", body: "x" })?.body).toEqual(Buffer.from("x"));
  });
});
