import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { frames } from "@attractor/llm/testing";
import { afterAll, beforeAll } from "vitest";
import { requireBuiltCli } from "../../src/testing/index.js";
import { anthropicTerminalEnv, startCliInTmux, type TmuxTerminal, terminalWorkspace } from "./tmux.js";

/** What a terminal test file shares: its workspace, its model server and the panes it started. */
export interface TmuxFixture {
  /** The workspace root (homes under it); set once the file's beforeAll has run. */
  readonly root: string;
  /** The project directory the command starts in. */
  readonly project: string;
  /** The environment that points the command at this file's model server. */
  env(): Record<string, string>;
  /** Starts the built command in a pane; every pane is killed after the file's tests. */
  start(
    name: string,
    args?: readonly string[],
    env?: Readonly<Record<string, string>>,
    size?: { readonly columns: number; readonly rows: number },
  ): TmuxTerminal;
}

/** Options of tmuxFixture. */
export interface TmuxFixtureOptions {
  /** `git init` the project (the default), as most terminal tests want checkpoints. */
  readonly git?: boolean;
  /** Prepares the workspace before the server starts (files, settings). */
  readonly prepare?: (root: string, project: string) => Promise<void> | void;
}

/**
 * Registers the file's beforeAll/afterAll: a workspace named by `prefix`, a model server on
 * 127.0.0.1 answering with `respond`, and clean-up of both and of every pane started.
 */
export function tmuxFixture(
  prefix: string,
  respond: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
  options: TmuxFixtureOptions = {},
): TmuxFixture {
  let root = "";
  let project = "";
  let server: Server | undefined;
  const panes: TmuxTerminal[] = [];
  const port = () => ((server as Server).address() as AddressInfo).port;

  beforeAll(async () => {
    requireBuiltCli();
    ({ root, project } = await terminalWorkspace(`attractor-tmux-${prefix}-`));
    if (options.git ?? true) execFileSync("git", ["init", "-q"], { cwd: project });
    await options.prepare?.(root, project);
    const started = createServer((req, res) => void respond(req, res));
    server = started;
    await new Promise<void>((r) => started.listen(0, "127.0.0.1", r));
  });

  afterAll(async () => {
    for (const pane of panes) pane.kill();
    const started = server;
    started?.closeAllConnections();
    if (started) await new Promise((r) => started.close(r));
    if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  return {
    get root() {
      return root;
    },
    get project() {
      return project;
    },
    env: () => anthropicTerminalEnv(root, port()),
    start(name, args = ["--provider", "anthropic"], env, size) {
      const pane = startCliInTmux(
        name,
        project,
        env ?? anthropicTerminalEnv(root, port()),
        args,
        undefined,
        size,
      );
      panes.push(pane);
      return pane;
    },
  };
}

/** Reads a request's whole body as text. */
export async function requestText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Answers with Anthropic stream events as server-sent events. */
export function sendEvents(res: ServerResponse, events: Parameters<typeof frames>[0]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const frame of frames(events)) res.write(frame);
  res.end();
}
