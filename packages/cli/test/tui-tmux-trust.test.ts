/**
 * The trust question in a real terminal: a project whose settings ask for yolo mode is opened
 * interactively; the question comes before the UI, the answer is remembered, and the UI then
 * starts and takes keys as usual.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli } from "../src/testing/index.js";
import {
  anthropicTerminalEnv,
  startCliInTmux,
  type TmuxTerminal,
  terminalWorkspace,
} from "./support/tmux.js";

let root: string;
let project: string;
let server: Server;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-trust-"));
  await mkdir(join(project, ".attractor"));
  await writeFile(join(project, ".attractor", "settings.json"), JSON.stringify({ mode: "yolo" }));
  // No request is expected: the model is never called in this test.
  server = createServer((_req, res) => res.writeHead(500).end());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});

afterAll(async () => {
  for (const t of terminals) t.kill();
  await new Promise((r) => server?.close(r));
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

const open = (name: string) => {
  const { port } = server.address() as AddressInfo;
  const t = startCliInTmux(name, project, anthropicTerminalEnv(root, port), ["--provider", "anthropic"]);
  terminals.push(t);
  return t;
};

describe("the trust question in tmux", () => {
  it("asks before the UI, remembers a no, and the UI runs in normal mode", async () => {
    const first = open("trust1");
    const question = await first.waitFor("Trust this project's settings? [y/N]");
    expect(question).toContain("wants: mode");
    expect(question).not.toContain("Ask anything");
    first.type("n");
    first.press("Enter");
    await first.waitFor("Ask anything");
    // The UI has the keyboard: typed text reaches its input box.
    first.type("hello there");
    await first.waitFor("hello there");
    expect(first.screen()).toContain("· normal ·");
    expect(first.screen()).toContain("sets mode, ignored because this project is not trusted");
    const store = JSON.parse(await readFile(join(root, "attractor", "trusted-projects.json"), "utf8"));
    expect(Object.values(store.projects)).toMatchObject([{ decision: "declined" }]);
    first.kill();

    // Declined: not asked again while the settings stay as they are.
    const second = open("trust2");
    await second.waitFor("Ask anything");
    expect(second.screen()).not.toContain("Trust this project");
  });
});
