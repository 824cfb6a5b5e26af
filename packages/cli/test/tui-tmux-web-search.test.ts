/**
 * A web search in the terminal UI, in a 50-column pane with NO_COLOR: the call's block lists the
 * numbered sources, title then URL, the URL wrapped whole rather than cut, with no colour. The
 * model is a wire server that checks every request (the side request's included) against the
 * Messages API specification.
 */
import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import {
  frames,
  messageDelta,
  messageStart,
  type RecordedRequest,
  type Reply,
  startWireServer,
  type WireServer,
  webSearchStreamEvents,
} from "@attractor/llm/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltCli } from "../src/testing/index.js";
import {
  anthropicTerminalEnv,
  startCliInTmux,
  type TmuxTerminal,
  terminalWorkspace,
} from "./support/tmux.js";

const SHANNON = "https://en.wikipedia.org/wiki/Claude_Shannon";
const COLUMNS = 50;

type Json = Record<string, unknown>;
const sseOf = (events: Json[]): Reply => ({
  kind: "sse",
  chunking: { mode: "whole" },
  frames: frames(events),
});
const text = (id: string, body: string): Reply =>
  sseOf([
    messageStart({ input_tokens: 30 }, id),
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: body } },
    { type: "content_block_stop", index: 0 },
    messageDelta("end_turn"),
    { type: "message_stop" },
  ]);

/** Searches when asked, answers once the search result is back; the side request gets the documented search. */
function respond(request: RecordedRequest): Reply {
  const body = request.body as { tools?: Json[]; messages?: unknown[] };
  if ((body.tools ?? []).some((t) => t.type === "web_search_20250305")) return sseOf(webSearchStreamEvents);
  if (JSON.stringify(body.messages).includes("tool_result"))
    return text("msg_done", "Shannon was born in 1916 [1]. Done.");
  return sseOf([
    messageStart({ input_tokens: 30 }, "msg_call"),
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu_search", name: "web_search", input: {} },
    },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"query":"Claude Shannon birth date"}' },
    },
    { type: "content_block_stop", index: 0 },
    messageDelta("tool_use"),
    { type: "message_stop" },
  ]);
}

let root = "";
let project = "";
let server: WireServer;
const panes: TmuxTerminal[] = [];
beforeAll(async () => {
  requireBuiltCli();
  ({ root, project } = await terminalWorkspace("attractor-tmux-websearch-"));
  execFileSync("git", ["init", "-q"], { cwd: project });
  server = await startWireServer(respond);
});
afterAll(async () => {
  for (const pane of panes) pane.kill();
  await server.close();
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** The pane's lines with their attributes, as tmux renders them in SGR sequences. */
function attributedScreen(name: string): string[] {
  return execFileSync(
    "tmux",
    ["-L", `attractor-${name}-${process.pid}`, "capture-pane", "-p", "-e", "-t", name],
    { encoding: "utf8" },
  ).split("\n");
}
// biome-ignore lint/suspicious/noControlCharactersInRegex: SGR sequences start with ESC
const SGR = /\x1b\[([0-9;:]*)m/g;
const coloured = (line: string) =>
  [...line.matchAll(SGR)].some(({ 1: list = "" }) =>
    list.split(";").some((p) => {
      const code = Number(p.split(":")[0]);
      return (code >= 30 && code <= 48 && code !== 39) || (code >= 90 && code <= 107);
    }),
  );

describe("a web search in the terminal UI", () => {
  it("lists the numbered sources, title then the whole URL, in a narrow pane without colour", async () => {
    const port = Number(new URL(server.url).port);
    const terminal = startCliInTmux(
      "websearch",
      project,
      { ...anthropicTerminalEnv(root, port), NO_COLOR: "1" },
      ["--provider", "anthropic"],
      undefined,
      { columns: COLUMNS, rows: 40 },
    );
    panes.push(terminal);
    await terminal.waitFor("Ask anything");
    terminal.type("when was shannon born?");
    terminal.press("Enter");
    const screen = await terminal.waitFor("Done.");
    const lines = screen.split("\n");
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(COLUMNS);

    const header = lines.findIndex((l) => l.includes("Web search"));
    expect(lines[header]).toContain("Claude Shannon birth date");
    expect(lines[header + 1]).toMatch(/⎿\s+1 source · anthropic$/);
    const first = lines.findIndex((l) => l.includes("[1] Claude Shannon - Wikipedia"));
    expect(first).toBe(header + 2);
    // The URL is too wide for the pane beside its indent: it wraps under the title, whole.
    const urlRows = lines.slice(first + 1, first + 4).filter((l) => /^\s{8}\S/.test(l));
    expect(urlRows.length).toBeGreaterThan(1);
    expect(urlRows.map((l) => l.trim()).join("")).toBe(SHANNON);
    expect(screen).toContain("Shannon was born in 1916 [1].");

    expect(attributedScreen("websearch").filter(coloured)).toEqual([]);
    // The side request carried only the provider's search tool, and every request met the specification.
    const side = server.requests.find((r) =>
      JSON.stringify(r.body?.tools ?? []).includes("web_search_20250305"),
    );
    expect(side?.body.tools).toEqual([expect.objectContaining({ type: "web_search_20250305" })]);
    expect(server.violations).toEqual([]);
  }, 60_000);
});
