/**
 * The fetch-and-serve scenario in the terminal UI (yolo mode, the default sandbox): the scripted
 * model fetches a local page, starts a server in the background, uses it from a later command and
 * answers; the user exits. The page reached the model as Markdown, the turn ended while the server
 * still ran, and once the command has exited nothing it started is left.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli, type ScriptedModel, startScriptedModel } from "../src/testing/index.js";
import {
  alive,
  groupMembers,
  type HostProcess,
  ownProcessGroup,
  processesWith,
} from "./support/host-processes.js";
import { startCliInTmux, type TmuxTerminal } from "./support/tmux.js";

const PAGE = `<!doctype html><html><head><title>Dev notes</title></head><body><main><article>
<h1>Dev notes</h1><p>Start the server in the background and check that it answers from another command; it greets every request it gets.</p>
<p>The <a href="/options">options</a> page lists what it takes.</p></article></main><script>track()</script></body></html>`;

let root: string;
let project: string;
let docs: Server;
let docsUrl: string;
let model: ScriptedModel;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  root = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "attractor-tmux-serve-"));
  project = join(root, "project");
  for (const dir of [project, join(root, "user")]) await mkdir(dir, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: project });
  docs = createServer((_q, s) => s.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  docsUrl = `http://127.0.0.1:${(docs.address() as AddressInfo).port}/dev`;
  model = await startScriptedModel("anthropic");
});

afterAll(async () => {
  terminal?.kill();
  await model?.close();
  await new Promise<void>((resolve) => docs.close(() => resolve()));
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const paneDead = (name: string) =>
  execFileSync(
    "tmux",
    ["-L", `attractor-${name}-${process.pid}`, "display-message", "-p", "-t", name, "#{pane_dead}"],
    {
      encoding: "utf8",
    },
  ).trim() === "1";

describe("fetch, serve in the background, use it, exit: in the terminal UI", () => {
  it("the page as Markdown, a turn that ends while the server runs, nothing left after exit", async () => {
    const marker = `tui-dev-server-${process.pid}`;
    const port = 48_000 + (process.pid % 1000);
    const server = `node -e "process.title='${marker}';require('http').createServer((q,s)=>s.end('hello from dev')).listen(${port},'127.0.0.1',()=>console.log('listening'))"`;
    let during: HostProcess[] = [];
    model.script([
      { calls: [{ name: "web_fetch", args: { url: docsUrl } }] },
      {
        expect: (r) =>
          r.at(-1)?.includes("# Dev notes") && r.at(-1)?.includes("[options](") && !r.at(-1)?.includes("<p>")
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
        calls: [{ name: "shell", args: { command: `curl -s http://127.0.0.1:${port}/` } }],
      },
      {
        expect: (r) => {
          during = processesWith(marker);
          return r.at(-1)?.includes("hello from dev") ? undefined : `curl gave ${r.at(-1)}`;
        },
        text: "The dev server answers.",
      },
    ]);
    terminal = startCliInTmux(
      "serve",
      project,
      {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: join(root, "user"),
        ATTRACTOR_HOME: join(root, "attractor"),
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
        ...model.env(),
      },
      ["--provider", "anthropic", "--mode", "yolo"],
    );
    await terminal.waitFor("Ask anything");
    terminal.type("read the notes, start the dev server and check it");
    terminal.press("Enter");
    const screen = await terminal.waitFor("The dev server answers.");
    expect(screen).not.toContain("UNEXPECTED");
    // The turn is over and the server is still running.
    expect(during.filter((p) => p.args.startsWith(marker) && alive(p.pid))).toHaveLength(1);

    terminal.type("/exit");
    terminal.press("Enter");
    await terminal.waitForScreen(() => paneDead("serve"), "the command to exit");
    const ownGroup = ownProcessGroup();
    expect(during.filter((p) => alive(p.pid))).toEqual([]);
    for (const pgid of new Set(during.map((p) => p.pgid).filter((g) => g !== ownGroup)))
      expect(groupMembers(pgid), `process group ${pgid}`).toBe(0);
  }, 90_000);
});
