// The built command, headless, with a scripted model that fetches a local page, starts a server
// in the background, uses it from a later command and ends the session: the page arrives as
// Markdown, the turn does not block on the server, and once the command has exited no process it
// started is left (checked by the host pids and process groups seen while it ran), with the
// sandbox on and off.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { probeBubblewrap } from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModel } from "../src/testing/index.js";
import { headlessFixture } from "./support/headless-fixture.js";
import {
  alive,
  groupMembers,
  type HostProcess,
  ownProcessGroup,
  processesWith,
} from "./support/host-processes.js";

const fx = headlessFixture();
const bwrap = await probeBubblewrap();

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

const ownGroup = ownProcessGroup();

const MODES = [
  { sandbox: "workspace-write", skip: !bwrap.available },
  { sandbox: "danger-full-access", skip: false },
] as const;

describe("a headless run that fetches a page and uses a background server", () => {
  for (const { sandbox, skip } of MODES)
    it.skipIf(skip)(
      `--sandbox ${sandbox}: the page as Markdown, a server that does not block the turn, reached from a later command, nothing left behind`,
      async () => {
        const marker = `dev-server-${process.pid}-${sandbox}`;
        // Any port: inside the sandbox the commands have a network namespace of their own.
        const port = 47_000 + (process.pid % 1000) + (sandbox === "workspace-write" ? 0 : 1);
        const server = `node -e "process.title='${marker}';require('http').createServer((q,s)=>{console.log('served',q.url);s.end('hello from dev')}).listen(${port},'127.0.0.1',()=>console.log('listening'))"`;
        let during: HostProcess[] = [];
        fx.model = await startScriptedModel("anthropic", [
          { calls: [{ name: "web_fetch", args: { url: docsUrl } }] },
          {
            expect: (r) =>
              r.at(-1)?.includes("# Service notes") &&
              r.at(-1)?.includes("[reference](") &&
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
            calls: [
              {
                name: "shell",
                // The server from a later command over loopback; the page's host only outside the sandbox.
                args: {
                  command: `curl -s http://127.0.0.1:${port}/check; echo; curl -s -m 3 ${docsUrl} >/dev/null && echo docs-reachable || echo docs-unreachable`,
                },
              },
            ],
          },
          {
            expect: (r) => {
              // Seen from this machine while the command still runs.
              during = processesWith(marker);
              const out = r.at(-1) ?? "";
              if (!out.includes("hello from dev")) return `curl gave ${out}`;
              const expected = sandbox === "workspace-write" ? "docs-unreachable" : "docs-reachable";
              return out.includes(expected) ? undefined : `expected ${expected}: ${out}`;
            },
            calls: [{ name: "shell_output", args: { id: "bg1", filter: "^served" } }],
          },
          {
            expect: (r) => (r.at(-1)?.includes("served /check") ? undefined : `output gave ${r.at(-1)}`),
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
          "--sandbox",
          sandbox,
          "--trust-project",
          ...fx.model.flags(),
        ]);
        expect(result.stderr).not.toContain("UNEXPECTED");
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout.trim())).toMatchObject({
          subtype: "success",
          result: "The server answers.",
        });
        // The server (named by its title) was running, in a process group of its own.
        const dev = during.filter((p) => p.args.startsWith(marker));
        expect(dev).toHaveLength(1);
        expect(dev[0]!.pgid).not.toBe(ownGroup);
        // The command has exited: none of those processes, nor anything in their groups, is left.
        expect(during.filter((p) => alive(p.pid))).toEqual([]);
        for (const pgid of new Set(during.map((p) => p.pgid).filter((g) => g !== ownGroup)))
          expect(groupMembers(pgid), `process group ${pgid}`).toBe(0);
        expect(processesWith(marker).filter((p) => alive(p.pid))).toEqual([]);
      },
    );
});
