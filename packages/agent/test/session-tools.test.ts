import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { Session } from "../src/session/session.js";
import { subagentTools } from "../src/subagent/tools.js";
import { type Script, type ScriptedReply, scriptedClient } from "../src/testing/index.js";
import { readFileTool } from "../src/tools/read-file.js";
import { shellTool } from "../src/tools/shell.js";
import type { SessionEvent } from "../src/types/events.js";
import type { RegisteredTool } from "../src/types/tool.js";
import { collect, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const toolMessages = (r: { messages: readonly { role: string; content: readonly unknown[] }[] }) =>
  r.messages.flatMap((m) =>
    m.role === "tool"
      ? [(m.content[0] as { toolResult: { content: string; isError: boolean } }).toolResult]
      : [],
  );

function make(tools: RegisteredTool[], script: Script | readonly ScriptedReply[], config = {}) {
  const client = scriptedClient(script);
  const session = new Session({
    profile: testProfile(tools),
    environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
    client,
    config,
  });
  const all = collect(session.events());
  return { session, client, all };
}

const big: RegisteredTool = {
  definition: {
    name: "read_file",
    description: "read",
    parameters: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] },
  },
  executor: async () => "x".repeat(100_000),
};

describe("Session tool rounds", () => {
  it("sends the model a truncated copy with the marker while TOOL_CALL_END has the full output", async () => {
    const { session, client, all } = make(
      [big],
      [{ toolCalls: [{ name: "read_file", args: { file_path: "big.txt" } }] }, { text: "read it" }],
    );
    await session.submit("read big.txt");
    await session.close();
    const end = (await all).find((e) => e.kind === "tool_call_end");
    expect(end?.kind === "tool_call_end" && end.data.output.length).toBe(100_000);
    expect(end?.data).toMatchObject({ truncated: true, isError: false });
    const [sent] = toolMessages(client.requests[1]!);
    expect(sent!.content.length).toBeLessThan(51_000);
    expect(sent!.content).toContain("[WARNING: Tool output was truncated. 50000 characters were removed");
  });

  it("real read_file of a 100k-character single line: the model gets the marker, TOOL_CALL_END all of it", async () => {
    const line = Array.from({ length: 10_000 }, (_, i) => String(i % 10).repeat(9)).join("-");
    await writeFile(join(dir, "big.txt"), line);
    const { session, client, all } = make(
      [readFileTool()],
      [{ toolCalls: [{ name: "read_file", args: { file_path: "big.txt" } }] }, { text: "read it" }],
    );
    await session.submit("Read big.txt");
    await session.close();
    const end = (await all).find((e) => e.kind === "tool_call_end");
    expect(end?.kind === "tool_call_end" && end.data.output).toBe(`1 | ${line}`);
    const [sent] = toolMessages(client.requests[1]!);
    expect(sent!.content).toContain(
      `[WARNING: Tool output was truncated. ${line.length + 4 - 50_000} characters were removed from the middle.`,
    );
    expect(sent!.content.startsWith(`1 | ${line.slice(0, 24_996)}`)).toBe(true);
    expect(sent!.content.endsWith(line.slice(-25_000))).toBe(true);
  });

  it("honours per-tool limits from SessionConfig", async () => {
    const { session, client } = make(
      [big],
      [{ toolCalls: [{ name: "read_file", args: { file_path: "big.txt" } }] }, { text: "ok" }],
      { toolOutputLimits: { read_file: 1000 } },
    );
    await session.submit("go");
    const [sent] = toolMessages(client.requests[1]!);
    expect(sent!.content).toContain("99000 characters were removed");
  });

  it("validates arguments against the tool's schema before it runs", async () => {
    let ran = false;
    const strict: RegisteredTool = {
      ...big,
      executor: async () => {
        ran = true;
        return "ran";
      },
    };
    const { session, client } = make(
      [strict],
      [{ toolCalls: [{ name: "read_file", args: { path: 3 } }] }, { text: "sorry" }],
    );
    await session.submit("go");
    expect(ran).toBe(false);
    const [sent] = toolMessages(client.requests[1]!);
    expect(sent).toMatchObject({ isError: true });
    expect(sent!.content).toMatch(/^Invalid arguments for tool: read_file/);
  });

  it("streams shell output as TOOL_CALL_OUTPUT_DELTA events before TOOL_CALL_END", async () => {
    const { session, all } = make(
      [shellTool()],
      [
        { toolCalls: [{ name: "shell", args: { command: "echo one; sleep 0.05; echo two" } }] },
        { text: "ok" },
      ],
    );
    await session.submit("go");
    await session.close();
    const events = await all;
    const deltas = events.flatMap((e) => (e.kind === "tool_call_output_delta" ? [e.data.delta] : []));
    expect(deltas.join("")).toBe("one\ntwo\n");
    const lastDelta = events.findLastIndex((e) => e.kind === "tool_call_output_delta");
    expect(lastDelta).toBeLessThan(events.findIndex((e) => e.kind === "tool_call_end"));
  });

  it("goes to AWAITING_INPUT when the model ends with a question, and back to work on the answer", async () => {
    const { session } = make([], [{ text: "Which file should I change?" }, { text: "Done." }]);
    await session.submit("fix it");
    expect(session.state).toBe("awaiting_input");
    await session.submit("src/a.ts");
    expect(session.state).toBe("idle");
  });

  it("shuts down in order: stream cancelled, processes killed, subagents closed, SESSION_END, CLOSED", async () => {
    const log: string[] = [];
    const script: Script = (r) => {
      const first = r.messages.find((m) => m.role === "user")?.content[0];
      if (first?.kind === "text" && first.text === "child") return { hang: true };
      return toolMessages(r).length === 0
        ? { toolCalls: [{ name: "spawn_agent", args: { task: "child" } }] }
        : { toolCalls: [{ name: "shell", args: { command: "sleep 30" } }] };
    };
    const { session, all } = make([shellTool(), ...subagentTools()], script);
    let shellStarted = false;
    session.subscribe((e: SessionEvent) => {
      if (e.kind === "tool_call_start" && e.data.toolName === "shell") shellStarted = true;
      if (e.kind === "tool_call_end") log.push(`parent tool_call_end ${e.data.toolName}`);
      if (e.kind === "processing_end" || e.kind === "session_end") log.push(`parent ${e.kind}`);
      if (e.kind === "session_end") log.push(`parent state ${session.state}`);
    });
    const running = session.submit("go");
    while (!shellStarted) await new Promise((r) => setTimeout(r, 10));
    const child = session.subagents.list()[0]!.session;
    child.subscribe((e) => {
      if (e.kind === "processing_end" || e.kind === "session_end") log.push(`child ${e.kind}`);
    });
    await session.close();
    await running;
    expect(log).toEqual([
      "parent tool_call_end spawn_agent",
      "parent tool_call_end shell",
      "parent processing_end",
      "child processing_end",
      "child session_end",
      "parent session_end",
      "parent state closed",
    ]);
    const events = await all;
    expect(events.at(-1)?.kind).toBe("session_end");
    expect(events.find((e) => e.kind === "processing_end")?.data).toMatchObject({ reason: "aborted" });
  });

  it("ends an iterator attached after close at once", async () => {
    const { session } = make([], [{ text: "ok" }]);
    await session.submit("hi");
    await session.close();
    expect(await collect(session.events())).toEqual([]);
  });
});
