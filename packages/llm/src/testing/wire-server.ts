import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { protocolOf, specViolations } from "./spec-validation.js";

/** A request the server received, body parsed as JSON when it is JSON. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests index into recorded bodies freely
  readonly body: any;
}

/** How a body is split into writes: whole, fixed-size pieces, or seeded random pieces of 1..max bytes. */
export type Chunking =
  | { readonly mode: "whole" }
  | { readonly mode: "fixed"; readonly size: number }
  | { readonly mode: "random"; readonly max: number; readonly seed?: number };

export type Reply =
  | {
      readonly kind: "json";
      readonly status?: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
    }
  | {
      readonly kind: "text";
      readonly status: number;
      readonly body: string;
      readonly headers?: Record<string, string>;
    }
  | {
      readonly kind: "sse";
      /** Raw SSE text, frame by frame (see sse()). */
      readonly frames: readonly string[];
      readonly status?: number;
      readonly headers?: Record<string, string>;
      readonly chunking?: Chunking;
      /** Destroy the socket after this many frames, without finishing the response. */
      readonly cutAfter?: number;
      /** Stop writing after this many frames and keep the connection open. */
      readonly stallAfter?: number;
      /** Pause between frames, ms. */
      readonly frameDelayMs?: number;
    }
  /** Accept the request and never answer. */
  | { readonly kind: "hang" };

export type Handler = (req: RecordedRequest) => Reply | Promise<Reply>;

export interface WireServer {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** TCP connections accepted so far, and how many of them are still open. */
  readonly connections: { readonly accepted: number; readonly open: number };
  /**
   * Model requests whose body broke the provider's specification (specs/) or its cross-field
   * rules. Such a request is answered with a 400 and close() fails, so no test passes with one.
   */
  readonly violations: { readonly path: string; readonly errors: readonly string[] }[];
  /** Replaces the handler for later requests. */
  setHandler(handler: Handler | readonly Reply[]): void;
  close(): Promise<void>;
}

/** One SSE frame: optional `event:` line, the JSON (or string) data split over `data:` lines when multiline. */
export function sse(
  data: unknown,
  options: { event?: string; multiline?: boolean; id?: string } = {},
): string {
  const text =
    typeof data === "string" ? data : JSON.stringify(data, null, options.multiline ? 2 : undefined);
  const lines: string[] = [];
  if (options.event) lines.push(`event: ${options.event}`);
  if (options.id) lines.push(`id: ${options.id}`);
  for (const line of text.split("\n")) lines.push(`data: ${line}`);
  return `${lines.join("\n")}\n\n`;
}

/** An SSE comment line (servers send these as keep-alive pings). */
export const sseComment = (text = "ping"): string => `: ${text}\n\n`;

function* pieces(text: string, chunking: Chunking): Generator<string> {
  if (chunking.mode === "whole") {
    yield text;
    return;
  }
  let seed = chunking.mode === "random" ? (chunking.seed ?? 7) : 0;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  let i = 0;
  while (i < text.length) {
    const size = chunking.mode === "fixed" ? chunking.size : 1 + Math.floor(rand() * chunking.max);
    yield text.slice(i, i + size);
    i += size;
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function writeSse(res: ServerResponse, reply: Extract<Reply, { kind: "sse" }>): Promise<void> {
  res.writeHead(reply.status ?? 200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...reply.headers,
  });
  res.flushHeaders();
  const chunking = reply.chunking ?? { mode: "random", max: 23 };
  for (let f = 0; f < reply.frames.length; f++) {
    if (reply.cutAfter !== undefined && f >= reply.cutAfter) {
      await pause(5);
      res.socket?.destroy();
      return;
    }
    if (reply.stallAfter !== undefined && f >= reply.stallAfter) return;
    for (const piece of pieces(reply.frames[f]!, chunking)) {
      if (res.destroyed) return;
      res.write(piece);
      // A macrotask between writes makes each piece its own TCP segment, so parsers see split lines.
      if (chunking.mode !== "whole") await pause(0);
    }
    if (reply.frameDelayMs) await pause(reply.frameDelayMs);
  }
  res.end();
}

export interface WireServerOptions {
  /**
   * Check each model request against the provider's specification (default true). Off only for a
   * test that sends a server-specific extension field on purpose.
   */
  readonly validate?: boolean;
  /** Top-level fields outside the specification that a test sends on purpose (server extensions). */
  readonly allowFields?: readonly string[];
}

/** Starts an HTTP server on 127.0.0.1 that answers with the handler, or with the replies in turn. */
export async function startWireServer(
  handler: Handler | readonly Reply[],
  options: WireServerOptions = {},
): Promise<WireServer> {
  const requests: RecordedRequest[] = [];
  const violations: { path: string; errors: string[] }[] = [];
  let current: Handler = toHandler(handler);
  const server = createServer(async (req, res) => {
    res.socket?.setNoDelay(true);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {}
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    requests.push(recorded);
    const protocol = options.validate === false ? undefined : protocolOf(recorded.method, recorded.path);
    const errors =
      protocol === undefined ? [] : specViolations(protocol, body, recorded.path, options.allowFields);
    let reply: Reply;
    if (errors.length > 0) {
      violations.push({ path: recorded.path, errors });
      const message = `request violates the ${protocol} specification: ${errors.join("; ")}`;
      reply = {
        kind: "json",
        status: 400,
        body: { error: { code: 400, status: "INVALID_ARGUMENT", type: "invalid_request_error", message } },
      };
    } else {
      try {
        reply = await current(recorded);
      } catch (err) {
        reply = { kind: "text", status: 599, body: `test handler failed: ${String(err)}` };
      }
    }
    switch (reply.kind) {
      case "json":
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body));
        return;
      case "text":
        res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers });
        res.end(reply.body);
        return;
      case "sse":
        await writeSse(res, reply);
        return;
      case "hang":
        return;
    }
  });
  const connections = { accepted: 0, open: 0 };
  server.on("connection", (socket) => {
    connections.accepted++;
    connections.open++;
    socket.once("close", () => connections.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections,
    violations,
    setHandler(h) {
      current = toHandler(h);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close(() => {
          if (violations.length === 0) resolve();
          else
            reject(
              new Error(
                `requests violated the provider specification:\n${violations
                  .map((v) => `${v.path}: ${v.errors.join("; ")}`)
                  .join("\n")}`,
              ),
            );
        });
      }),
  };
}

function toHandler(handler: Handler | readonly Reply[]): Handler {
  if (typeof handler === "function") return handler;
  const queue = [...handler];
  return () => queue.shift() ?? { kind: "text", status: 599, body: "no reply queued for this request" };
}
