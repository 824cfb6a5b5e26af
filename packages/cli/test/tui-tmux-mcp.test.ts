/**
 * The interactive UI with a project .mcp.json, in a real terminal (tmux): attractor asks whether
 * to use the project's servers before the UI starts, /mcp shows them connected, the model calls an
 * MCP tool by its mcp__ name, the permission prompt asks, the answer reaches the model, and /mcp
 * shows both servers connected.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli, type ScriptedModel, startScriptedModel } from "../src/testing/index.js";
import { startCliInTmux, type TmuxTerminal, terminalWorkspace } from "./support/tmux.js";

const require = createRequire(import.meta.url);
const serverEntry = (pkg: string) =>
  join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");

let root: string;
let project: string;
let model: ScriptedModel;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-mcp-"));
  await writeFile(join(project, "notes.txt"), "read through MCP\n");
  await writeFile(
    join(project, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [serverEntry("@modelcontextprotocol/server-everything"), "stdio"],
        },
        filesystem: {
          command: process.execPath,
          args: [serverEntry("@modelcontextprotocol/server-filesystem"), project],
        },
      },
    }),
  );
  model = await startScriptedModel("anthropic", [
    {
      text: "Echoing.",
      calls: [{ name: "mcp__everything__echo", args: { message: "through the terminal" } }],
    },
    {
      expect: (r) => (r.at(-1) === "Echo: through the terminal" ? undefined : `echo gave ${r.at(-1)}`),
      text: "The everything server echoed it back.",
    },
  ]);
});

afterAll(async () => {
  terminal?.kill();
  await model?.close();
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe("MCP servers in the interactive UI", () => {
  it("asks to use the project's servers, asks before an MCP tool runs, and shows them in /mcp", async () => {
    terminal = startCliInTmux(
      "mcp",
      project,
      {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: join(root, "user"),
        ATTRACTOR_HOME: join(root, "attractor"),
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
        ...model.env(),
      },
      ["--provider", "anthropic"],
    );
    const { waitFor, type, press } = terminal;

    await waitFor('Use MCP server "everything"');
    type("y");
    press("Enter");
    await waitFor('Use MCP server "filesystem"');
    type("y");
    press("Enter");
    await waitFor("Ask anything");
    const approvals = JSON.parse(await readFile(join(root, "attractor", "mcp-approvals.json"), "utf8"));
    expect(Object.values(approvals[project]).map((a) => (a as { decision: string }).decision)).toEqual([
      "approved",
      "approved",
    ]);

    // The servers connect in the background; the first request waits for them briefly.
    await waitFor("Ask anything");
    type("echo something through MCP");
    await waitFor("echo something through MCP");
    press("Enter");
    // MCP tools ask in normal mode.
    const prompt = await waitFor("Allow once");
    expect(prompt).toContain("Allow?");
    expect(prompt).toContain("mcp__everything__echo");
    press("y");
    await waitFor("The everything server echoed it back.");
    expect(model.seen()[0]?.tools).toEqual(
      expect.arrayContaining(["mcp__everything__echo", "mcp__filesystem__read_text_file"]),
    );

    // /mcp shows both servers connected, with their tools.
    await waitFor("Ask anything");
    type("/mcp");
    await waitFor("/mcp");
    press("Enter");
    const shown = await waitFor("filesystem  (stdio · connected");
    expect(shown).toContain("read_text_file");
    expect(shown).toContain("the permission rule mcp__filesystem covers them all");

    type("/exit");
    press("Enter");
    await waitFor("is stored; resume it with: attractor --resume");
  }, 90_000);
});
