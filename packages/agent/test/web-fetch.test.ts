import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import type { NonPublicTarget } from "../src/tools/web-fetch/index.js";
import { createWebFetchTool, nonPublicKind } from "../src/tools/web-fetch/index.js";
import type { RegisteredTool, ToolOutput } from "../src/types/tool.js";
import { makePdf } from "./support/make-pdf.js";

// 1x1 transparent PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

const ARTICLE = `<!doctype html><html><head><title>Install guide</title><style>body{color:red}</style></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<main><article><h1>Install guide</h1>
<p>To install the <a href="/pkg/thing">thing package</a>, run the command below from the root of your project. It needs Node 20 or later, and a network connection to the registry.</p>
<pre><code>npm install thing</code></pre>
<p>After installing, import it from your code, configure the options you need, and start it. The options are described on the <a href="options.html">options page</a>, with examples.</p>
</article></main><footer>Copyright 2026 Footer Corp</footer><script>window.tracking = true;</script></body></html>`;

let server: Server;
let base: string;
let port: number;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    switch (path) {
      case "/docs/install":
      case "/counted":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE);
        return;
      case "/data.json":
        res.writeHead(200, { "content-type": "application/json" }).end('{"name":"thing","versions":[1,2]}');
        return;
      case "/notes.txt":
        res.writeHead(200, { "content-type": "text/plain" }).end("plain notes\nline two\n");
        return;
      case "/pixel.png":
        res.writeHead(200, { "content-type": "image/png" }).end(PNG);
        return;
      case "/paper.pdf":
        res
          .writeHead(200, { "content-type": "application/pdf" })
          .end(makePdf([["Abstract: fetched PDFs are read."]]));
        return;
      case "/away":
        res.writeHead(302, { location: "http://elsewhere.example/landing" }).end();
        return;
      case "/moved":
        res.writeHead(301, { location: "/data.json" }).end();
        return;
      case "/missing":
        res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
        return;
      case "/slow": {
        const timer = setTimeout(() => res.writeHead(200).end("late"), 5_000);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      case "/huge": {
        res.writeHead(200, { "content-type": "text/plain" });
        const line = `${"x".repeat(1023)}\n`;
        let sent = 0;
        const push = () => {
          while (sent < 8 * 1024 && !res.destroyed) {
            sent++;
            if (!res.write(line)) return void res.once("drain", push);
          }
          res.end();
        };
        push();
        return;
      }
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const env = new LocalExecutionEnvironment({ workingDirectory: process.cwd() });
const run = async (tool: RegisteredTool, args: Record<string, unknown>) =>
  (await tool.executor(args, env, { toolCallId: "w1" })) as ToolOutput;
/** Loopback is where the test server is: these tools are allowed to reach it. */
const local = (options: Parameters<typeof createWebFetchTool>[0] = {}) =>
  createWebFetchTool({ allowNonPublic: () => true, ...options });

describe("web_fetch", () => {
  it("turns an HTML page into Markdown of its main content, links kept and made absolute", async () => {
    const out = await run(local(), { url: `${base}/docs/install` });
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain("as Markdown");
    expect(out.output).toContain("# Install guide");
    expect(out.output).toContain(`[thing package](${base}/pkg/thing)`);
    expect(out.output).toContain(`[options page](${base}/docs/options.html)`);
    expect(out.output).toContain("```\nnpm install thing\n```");
    // Navigation, scripts and styles are not main content.
    expect(out.output).not.toContain("window.tracking");
    expect(out.output).not.toContain("color:red");
    expect(out.output).not.toContain("<p>");
  });

  it("returns JSON and text as they are, and images as images", async () => {
    const tool = local();
    const json = await run(tool, { url: `${base}/data.json` });
    expect(json.output).toContain('{"name":"thing","versions":[1,2]}');
    const text = await run(tool, { url: `${base}/notes.txt` });
    expect(text.output).toContain("plain notes\nline two");
    const image = await run(tool, { url: `${base}/pixel.png` });
    expect(image.isError).toBeFalsy();
    expect(image.image?.mediaType).toBe("image/png");
    expect(Buffer.from(image.image?.data as string, "base64").equals(PNG)).toBe(true);
  });

  it("reads a PDF through the PDF path", async () => {
    const out = await run(local(), { url: `${base}/paper.pdf` });
    expect(out.isError).toBeFalsy();
    expect(out.output).toContain("is a PDF:");
    expect(out.output).toContain("--- Page 1 ---\nAbstract: fetched PDFs are read.");
    const asked: string[] = [];
    const answered = await run(
      local({
        answer: async ({ content }) => {
          asked.push(content);
          return "They are read.";
        },
      }),
      { url: `${base}/paper.pdf`, question: "What happens to PDFs?" },
    );
    expect(answered.output).toContain("They are read.");
    expect(asked[0]).toContain("Abstract: fetched PDFs are read.");
  });

  it("reports a redirect to another host instead of following it, and follows one on the same host", async () => {
    const tool = local();
    const away = await run(tool, { url: `${base}/away` });
    expect(away.isError).toBeFalsy();
    expect(away.output).toContain("redirects (HTTP 302) to another host: http://elsewhere.example/landing");
    expect(away.output).toContain("not followed");
    const moved = await run(tool, { url: `${base}/moved` });
    expect(moved.output).toContain(`${base}/data.json (HTTP 200`);
    expect(moved.output).toContain('"versions":[1,2]');
  });

  it("gives up on a slow page at its time limit", async () => {
    const started = Date.now();
    const out = await run(local({ timeoutMs: 300 }), { url: `${base}/slow` });
    expect(out.isError).toBe(true);
    expect(out.errorCode).toBe("timeout");
    expect(out.output).toContain("longer than 300 ms");
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("reads a huge page only up to its size limit and says so", async () => {
    const out = await run(local({ maxBytes: 20_000 }), { url: `${base}/huge` });
    expect(out.isError).toBeFalsy();
    expect(out.details?.truncated).toBe(true);
    expect(out.details?.bytes).toBe(20_000);
    expect(out.output).toContain("only its start was read");
  });

  it("reports an HTTP error status as an error with the server's answer", async () => {
    const out = await run(local(), { url: `${base}/missing` });
    expect(out.isError).toBe(true);
    expect(out.output).toContain("HTTP 404");
    expect(out.output).toContain("no such page");
  });

  it("refuses a name that resolves to a private or loopback address unless allowed, deciding before connecting", async () => {
    const asked: NonPublicTarget[] = [];
    const lookup = async (host: string) =>
      host === "intranet.test"
        ? [{ address: "10.20.30.40", family: 4 as const }]
        : [{ address: "127.0.0.1", family: 4 as const }];
    // No decider: refused outright, before any connection is made.
    const strict = createWebFetchTool({ lookup });
    const refused = await run(strict, { url: "http://intranet.test/secrets" });
    expect(refused.isError).toBe(true);
    expect(refused.errorCode).toBe("non_public_address");
    expect(refused.output).toContain("intranet.test resolves to 10.20.30.40, a private address");
    // A decider that says no is asked with the resolved address.
    const denying = createWebFetchTool({
      lookup,
      allowNonPublic: (t) => {
        asked.push(t);
        return false;
      },
    });
    const denied = await run(denying, { url: "http://intranet.test/x" });
    expect(denied.errorCode).toBe("non_public_address");
    expect(asked).toEqual([
      { url: "http://intranet.test/x", host: "intranet.test", address: "10.20.30.40", kind: "private" },
    ]);
    // A name resolving to loopback, allowed: the connection goes to the checked address.
    const allowing = createWebFetchTool({
      lookup,
      allowNonPublic: (t) => {
        asked.push(t);
        return true;
      },
    });
    const fetched = await run(allowing, { url: `http://docs.test:${port}/data.json` });
    expect(fetched.output).toContain('"versions":[1,2]');
    expect(asked.at(-1)).toMatchObject({ host: "docs.test", address: "127.0.0.1", kind: "loopback" });
    // Literal loopback addresses are judged the same way.
    const literal = await run(createWebFetchTool(), { url: `${base}/data.json` });
    expect(literal.errorCode).toBe("non_public_address");
  });

  it("answers a question from the page in a side request, so only the answer comes back", async () => {
    const questions: { question: string; content: string }[] = [];
    const tool = local({
      answer: async ({ question, content }) => {
        questions.push({ question, content });
        return "Run `npm install thing`.";
      },
    });
    const out = await run(tool, { url: `${base}/docs/install`, question: "How do I install it?" });
    expect(out.output).toContain("Run `npm install thing`.");
    expect(out.output).not.toContain("After installing");
    expect(questions[0]?.question).toBe("How do I install it?");
    expect(questions[0]?.content).toContain("npm install thing");
  });

  it("keeps a fetched page for a while: a second call does not fetch it again", async () => {
    const tool = local();
    await run(tool, { url: `${base}/counted` });
    const again = await run(tool, { url: `${base}/counted`, question: "what?" });
    expect(again.output).toContain("npm install thing");
    expect(hits.get("/counted")).toBe(1);
    await run(local({ cacheTtlMs: 0 }), { url: `${base}/counted` });
    expect(hits.get("/counted")).toBe(2);
  });

  it("refuses URLs that are not http or https", async () => {
    const out = await run(local(), { url: "file:///etc/passwd" });
    expect(out.errorCode).toBe("invalid_url");
  });
});

describe("nonPublicKind", () => {
  it("sorts addresses into loopback, private, link-local and public, IPv4-mapped IPv6 included", () => {
    expect(nonPublicKind("127.0.0.1")).toBe("loopback");
    expect(nonPublicKind("::1")).toBe("loopback");
    expect(nonPublicKind("::ffff:10.0.0.1")).toBe("private");
    // IPv6 forms that reach an IPv4 host: mapped in hex, translated, compatible, NAT64, 6to4.
    expect(nonPublicKind("::ffff:7f00:1")).toBe("loopback");
    expect(nonPublicKind("::ffff:0:10.1.2.3")).toBe("private");
    expect(nonPublicKind("::127.0.0.1")).toBe("loopback");
    expect(nonPublicKind("64:ff9b::10.0.0.1")).toBe("private");
    expect(nonPublicKind("64:ff9b::a9fe:a9fe")).toBe("link-local");
    expect(nonPublicKind("2002:c0a8:0101::1")).toBe("private");
    expect(nonPublicKind("64:ff9b::8.8.8.8")).toBeUndefined();
    expect(nonPublicKind("2002:0808:0808::1")).toBeUndefined();
    expect(nonPublicKind("2606:4700::1111")).toBeUndefined();
    expect(nonPublicKind("172.20.1.1")).toBe("private");
    expect(nonPublicKind("192.168.1.1")).toBe("private");
    expect(nonPublicKind("fd12::1")).toBe("private");
    expect(nonPublicKind("169.254.169.254")).toBe("link-local");
    expect(nonPublicKind("fe80::1%eth0")).toBe("link-local");
    expect(nonPublicKind("0.0.0.0")).toBe("unspecified");
    expect(nonPublicKind("93.184.216.34")).toBeUndefined();
    expect(nonPublicKind("2606:4700::1111")).toBeUndefined();
    expect(nonPublicKind("not-an-address")).toBe("unspecified");
  });
});
