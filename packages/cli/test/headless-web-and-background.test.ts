import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModel } from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";

const fx = headlessFixture();

const PAGE = `<!doctype html><html><head><title>Service notes</title></head><body>
<nav><a href="/">Home</a></nav><main><article><h1>Service notes</h1>
<p>The development server listens on the port given to it and answers every request with a greeting. Start it in the background, then query it from another command to check it answers.</p>
<p>See the <a href="/reference">reference</a> for the options it takes, with examples of each of them, and the defaults.</p>
</article></main><script>track()</script></body></html>`;

let docs: Server;
let docsUrl: string;
beforeAll(async () => {
  docs = createServer((_q, s) => s.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}/notes`;
});
afterAll(() => new Promise<void>((resolve) => docs.close(() => resolve())));

const marker = `dev-server-${process.pid}`;
const running = () =>
  execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(marker) && !l.startsWith("ps "));

describe("a headless run that fetches a page and uses a background server", () => {
  it("gets the page as Markdown, starts a server without blocking, reaches it from a later command, leaves nothing behind", async () => {
    // Any port: inside the sandbox the commands have a network namespace of their own.
    const port = 47_000 + (process.pid % 1000);
    const server = `node -e "process.title='${marker}';require('http').createServer((q,s)=>{console.log('served',q.url);s.end('hello from dev')}).listen(${port},'127.0.0.1',()=>console.log('listening'))"`;
    fx.model = await startScriptedModel("anthropic", [
      { calls: [{ name: "web_fetch", args: { url: docsUrl } }] },
      {
        expect: (r) =>
          r.at(-1)?.includes("# Service notes") &&
          !r.at(-1)?.includes("<p>") &&
          !r.at(-1)?.includes("track()")
            ? undefined
            : `web_fetch gave ${r.at(-1)}`,
        calls: [{ name: "shell", args: { command: server, run_in_background: true } }],
      },
      {
        expect: (r) =>
          r.at(-1)?.includes("Started in the background as bg1") ? undefined : `start gave ${r.at(-1)}`,
        calls: [{ name: "shell_output", args: { id: "bg1", wait_ms: 10_000 } }],
      },
      {
        expect: (r) => (r.at(-1)?.includes("listening") ? undefined : `output gave ${r.at(-1)}`),
        calls: [{ name: "shell", args: { command: `curl -s http://127.0.0.1:${port}/check` } }],
      },
      {
        expect: (r) => (r.at(-1)?.includes("hello from dev") ? undefined : `curl gave ${r.at(-1)}`),
        text: "The server answers.",
      },
    ]);
    const result = await fx.run([
      "-p",
      "Read the notes, start the dev server and check it.",
      "--output-format",
      "json",
      "--mode",
      "yolo",
      "--trust-project",
      ...fx.model.flags(),
    ]);
    expect(result.stderr).not.toContain("UNEXPECTED");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({
      subtype: "success",
      result: "The server answers.",
    });
    expect(running()).toEqual([]);
  });
});
