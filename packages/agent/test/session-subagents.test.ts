import { mkdir } from "node:fs/promises";
import type { Request } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Session } from "../src/session/session.js";
import { subagentTools } from "../src/subagent/tools.js";
import { nodeEnvironment, type ScriptedReply, scriptedClient } from "../src/testing/index.js";
import { collect, fnTool, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

const firstUser = (r: Request) => {
  const m = r.messages.find((x) => x.role === "user");
  return m?.content[0]?.kind === "text" ? m.content[0].text : "";
};
const toolOutputs = (r: Request) =>
  r.messages.flatMap((m) =>
    m.role === "tool" && m.content[0]?.kind === "tool_result"
      ? [String(m.content[0].toolResult.content)]
      : [],
  );
const pwd = fnTool("pwd", async (_a, env) => env.workingDirectory());

describe("typed subagents, called as Claude Code's Agent tool", () => {
  const helper = { name: "helper", description: "helps", prompt: "You help." };
  const run = async (spawnArgs: Record<string, unknown>) => {
    const script = (r: Request): ScriptedReply => {
      if (firstUser(r) === "child task")
        return toolOutputs(r).length === 0
          ? { toolCalls: [{ name: "pwd" }] }
          : { text: "the child's answer" };
      return toolOutputs(r).length === 0
        ? { toolCalls: [{ name: "spawn_agent", args: { task: "child task", ...spawnArgs } }] }
        : { text: "parent done" };
    };
    const client = scriptedClient(script);
    const s = new Session({
      profile: testProfile([pwd, ...subagentTools()]),
      environment: nodeEnvironment(dir),
      client,
      config: { subagentTypes: [helper] },
    });
    await s.submit("delegate");
    const parentLast = client.requests.filter((r) => firstUser(r) !== "child task").at(-1)!;
    await s.close();
    return JSON.parse(toolOutputs(parentLast)[0]!) as Record<string, unknown>;
  };

  it("with a type, spawn_agent waits and returns the child's final answer", async () => {
    expect(await run({ subagent_type: "helper" })).toMatchObject({
      output: "the child's answer",
      success: true,
    });
  });

  it("run_in_background returns the agent id at once", async () => {
    const out = await run({ subagent_type: "helper", run_in_background: true });
    expect(out.agent_id).toEqual(expect.any(String));
    expect(out.output).toBeUndefined();
  });
});

describe("subagents", () => {
  it("spawns a child with its own history on the same environment and returns its result", async () => {
    const script = (r: Request): ScriptedReply => {
      if (firstUser(r) === "child task") {
        return toolOutputs(r).length === 0 ? { toolCalls: [{ name: "pwd" }] } : { text: "child says hi" };
      }
      const outs = toolOutputs(r);
      if (outs.length === 0) return { toolCalls: [{ name: "spawn_agent", args: { task: "child task" } }] };
      if (outs.length === 1) {
        const { agent_id } = JSON.parse(outs[0]!) as { agent_id: string };
        return { toolCalls: [{ name: "wait", args: { agent_id } }] };
      }
      return { text: "parent done" };
    };
    const client = scriptedClient(script);
    const session = new Session({
      profile: testProfile([pwd, ...subagentTools()]),
      environment: nodeEnvironment(dir),
      client,
    });
    const all = collect(session.events());
    await session.submit("delegate");
    const waited = JSON.parse(toolOutputs(client.requests.at(-1)!)[1]!);
    expect(waited).toMatchObject({ output: "child says hi", success: true, turns_used: 2 });
    const [child] = session.subagents.list();
    expect(child?.status).toBe("completed");
    expect(child?.session.history.map((t) => t.kind)).toEqual([
      "user",
      "assistant",
      "tool_results",
      "assistant",
    ]);
    expect(child?.session.history.find((t) => t.kind === "tool_results")).toMatchObject({
      results: [{ content: dir }],
    });
    expect(session.history.some((t) => t.kind === "user" && t.content === "child task")).toBe(false);
    await session.close();
    expect(child?.session.history).toBeDefined();
    expect((await all).at(-1)?.kind).toBe("session_end");
  });

  it("limits depth: a child at the maximum is not offered the subagent tools", async () => {
    const client = scriptedClient((r) =>
      firstUser(r) === "child"
        ? { text: "ok" }
        : toolOutputs(r).length === 0
          ? { toolCalls: [{ name: "spawn_agent", args: { task: "child" } }] }
          : { text: "done" },
    );
    const session = new Session({
      profile: testProfile([pwd, ...subagentTools()]),
      environment: nodeEnvironment(dir),
      client,
    });
    await session.submit("go");
    await session.subagents.wait(session.subagents.list()[0]!.id);
    const childRequest = client.requests.find((r) => firstUser(r) === "child")!;
    expect(childRequest.tools?.map((t) => t.name)).toEqual(["pwd"]);
    expect(client.requests[0]!.tools?.map((t) => t.name)).toContain("spawn_agent");
    const child = session.subagents.list()[0]!.session as Session;
    expect(() => child.subagents.spawn({ task: "grandchild" })).toThrow(/depth limit/);
    await session.close();
  });

  it("scopes a child to a subdirectory and close_agent stops it", async () => {
    const client = scriptedClient((r) => (firstUser(r) === "scoped" ? { hang: true } : { text: "x" }));
    const session = new Session({
      profile: testProfile([pwd, ...subagentTools()]),
      environment: nodeEnvironment(dir),
      client,
    });
    await mkdir(`${dir}/sub`);
    const handle = session.subagents.spawn({ task: "scoped", workingDir: "sub" });
    expect(handle.session.environment.workingDirectory()).toBe(`${dir}/sub`);
    expect(() => session.subagents.spawn({ task: "x", workingDir: "../elsewhere" })).toThrow(/inside/);
    await new Promise((r) => setTimeout(r, 20));
    expect(await session.subagents.close(handle.id)).toBe("failed");
    expect((handle.session as Session).state).toBe("closed");
    await session.close();
  });
});

describe("subagent tool binding", () => {
  it("binds the subagent tools to the session running them, even when sessions share a profile", async () => {
    const client = scriptedClient((r) =>
      firstUser(r).startsWith("child of")
        ? { text: "ok" }
        : toolOutputs(r).length === 0
          ? { toolCalls: [{ name: "spawn_agent", args: { task: `child of ${firstUser(r)}` } }] }
          : { text: "done" },
    );
    const profile = testProfile([pwd, ...subagentTools()]);
    const a = new Session({ profile, environment: nodeEnvironment(dir), client });
    const b = new Session({ profile, environment: nodeEnvironment(dir), client });
    await Promise.all([a.submit("a"), b.submit("b")]);
    expect(a.subagents.list()).toHaveLength(1);
    expect(b.subagents.list()).toHaveLength(1);
    expect(a.subagents.list()[0]!.session.history[0]).toMatchObject({ content: "child of a" });
    expect(b.subagents.list()[0]!.session.history[0]).toMatchObject({ content: "child of b" });
    await Promise.all([a.close(), b.close()]);
  });

  it("leaves a host's own tool registered under a subagent tool's name alone", async () => {
    const own = fnTool("spawn_agent", async () => "the host's spawn_agent", {
      task: { type: "string" },
    });
    const client = scriptedClient([
      { toolCalls: [{ name: "spawn_agent", args: { task: "x" } }] },
      { text: "done" },
    ]);
    const profile = testProfile([...subagentTools()]);
    profile.toolRegistry.register(own);
    const session = new Session({ profile, environment: nodeEnvironment(dir), client });
    await session.submit("go");
    expect(toolOutputs(client.requests[1]!)).toEqual(["the host's spawn_agent"]);
    expect(session.subagents.list()).toEqual([]);
    await session.close();
  });
});
