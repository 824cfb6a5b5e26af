import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import type { Request } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { Session } from "../src/session/session.js";
import { subagentTools } from "../src/subagent/tools.js";
import { type Script, scriptedClient } from "../src/testing/index.js";
import { shellTool } from "../src/tools/shell.js";
import type { SessionEvent } from "../src/types/events.js";
import { collect, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const kinds = (events: readonly SessionEvent[]) => events.map((e) => e.kind);
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** Resolves once the condition holds (polling), so a test can act while work is under way. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}
const firstUser = (r: Request) => {
  const m = r.messages.find((x) => x.role === "user");
  return m?.content[0]?.kind === "text" ? m.content[0].text : "";
};

function shellSession(script: Script) {
  const client = scriptedClient(script);
  const session = new Session({
    profile: testProfile([shellTool({ defaultTimeoutMs: 60_000 })]),
    environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
    client,
  });
  const all = collect(session.events());
  return { session, client, all };
}

describe("Session.interrupt", () => {
  it("kills a running sleep, drops queued follow-ups and leaves a usable IDLE session", async () => {
    const pidFile = path.join(dir, "pid");
    const { session, client, all } = shellSession((_r, i) =>
      i === 0
        ? {
            toolCalls: [
              { id: "call_sleep", name: "shell", args: { command: "echo $$ > pid; exec sleep 30" } },
            ],
          }
        : { text: "fine" },
    );
    const running = session.submit("sleep a while");
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    session.followUp("queued behind the sleep");

    await session.interrupt();
    await running;
    expect(alive(pid)).toBe(false);
    expect(session.state).toBe("idle");

    // The assistant turn's call has an error result, so the next request is valid for any provider.
    const results = session.history.find((t) => t.kind === "tool_results");
    expect(results).toMatchObject({ results: [{ toolCallId: "call_sleep", isError: true }] });
    expect(results?.kind === "tool_results" && results.results[0]!.content).toMatch(
      /Interrupted by the user/,
    );

    await session.submit("carry on");
    expect(session.state).toBe("idle");
    const next = client.requests[1]!.messages;
    expect(next.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    const toolMessage = next[3]!.content[0];
    expect(toolMessage?.kind === "tool_result" && toolMessage.toolResult).toMatchObject({
      toolCallId: "call_sleep",
      isError: true,
    });

    await session.close();
    const events = await all;
    const ends = events.filter((e) => e.kind === "processing_end");
    expect(ends.map((e) => [e.data.reason, e.data.state])).toEqual([
      ["aborted", "idle"],
      ["completed", "idle"],
    ]);
    const inputs = events.flatMap((e) => (e.kind === "user_input" ? [e.data.content] : []));
    expect(inputs).toEqual(["sleep a while", "carry on"]);
    expect(events.find((e) => e.kind === "tool_call_end")?.data).toMatchObject({
      callId: "call_sleep",
      isError: true,
    });
    expect(kinds(events).filter((k) => k === "session_end")).toHaveLength(1);
  });

  it("cancels a model stream in flight and keeps the history consistent", async () => {
    const { session, client, all } = shellSession((_r, i) => (i === 0 ? { hang: true } : { text: "hello" }));
    const running = session.submit("first");
    await until(() => client.requests.length === 1);
    await session.interrupt();
    await running;
    expect(session.state).toBe("idle");
    expect(session.history.map((t) => t.kind)).toEqual(["user"]);
    await session.submit("second");
    expect(client.requests[1]!.messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    await session.close();
    const events = await all;
    expect(kinds(events)).not.toContain("error");
    expect(events.find((e) => e.kind === "processing_end")?.data.reason).toBe("aborted");
  });

  it("does nothing when the session is idle", async () => {
    const { session, all } = shellSession(() => ({ text: "ok" }));
    await session.interrupt();
    await session.submit("hi");
    await session.interrupt();
    expect(session.state).toBe("idle");
    await session.close();
    expect(kinds(await all).filter((k) => k === "processing_end")).toHaveLength(1);
  });

  it("stops running subagents' current work without closing them", async () => {
    const script: Script = (r) => {
      if (firstUser(r) === "child task") return { hang: true };
      const outputs = r.messages.filter((m) => m.role === "tool");
      if (outputs.length === 0) return { toolCalls: [{ name: "spawn_agent", args: { task: "child task" } }] };
      const first = outputs[0]!.content[0];
      const spawned = first?.kind === "tool_result" ? JSON.parse(String(first.toolResult.content)) : {};
      return { toolCalls: [{ name: "wait", args: { agent_id: spawned.agent_id } }] };
    };
    const client = scriptedClient(script);
    const session = new Session({
      profile: testProfile([...subagentTools()]),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client,
    });
    let waiting = false;
    session.subscribe((e) => {
      if (e.kind === "tool_call_start" && e.data.toolName === "wait") waiting = true;
    });
    const running = session.submit("delegate");
    await until(() => waiting && client.requests.some((r) => firstUser(r) === "child task"));
    const child = session.subagents.list()[0]!;
    const childEvents: SessionEvent[] = [];
    child.session.subscribe((e) => childEvents.push(e));

    await session.interrupt();
    await running;
    expect(session.state).toBe("idle");
    const childSession = child.session as Session;
    expect(childSession.state).toBe("idle");
    expect(childEvents.find((e) => e.kind === "processing_end")?.data.reason).toBe("aborted");
    expect(session.subagents.list()[0]?.status).toBe("failed");
    const waitResult = session.history.at(-1);
    expect(waitResult).toMatchObject({
      kind: "tool_results",
      results: [{ toolName: "wait", isError: true }],
    });
    await session.close();
    expect(childSession.state).toBe("closed");
  });
});
