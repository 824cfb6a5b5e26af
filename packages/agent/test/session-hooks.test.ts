import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Request } from "@attractor/llm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSkillTool, loadSkills } from "../src/customization/skills.js";
import { loadSubagentTypes } from "../src/customization/subagent-types.js";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { Session } from "../src/session/session.js";
import { subagentTools } from "../src/subagent/tools.js";
import { nodeEnvironment, type ScriptedReply, scriptedClient } from "../src/testing/index.js";
import type { SessionHooks } from "../src/types/hooks.js";
import { collect, fnTool, tempDir, testProfile } from "./support/fixtures.js";

let dir: string;
let remove: () => Promise<void>;
beforeEach(async () => {
  ({ dir, remove } = await tempDir());
});
afterEach(() => remove());

/** Every text the model was sent as user-role content, in order. */
const userTexts = (r: Request) =>
  r.messages.flatMap((m) =>
    m.role === "user" ? m.content.flatMap((p) => (p.kind === "text" ? [p.text] : [])) : [],
  );
const toolOutputs = (r: Request) =>
  r.messages.flatMap((m) =>
    m.role === "tool" && m.content[0]?.kind === "tool_result"
      ? [String(m.content[0].toolResult.content)]
      : [],
  );
const systemText = (r: Request) => {
  const part = r.messages[0]?.content[0];
  return part?.kind === "text" ? part.text : "";
};

const echo = fnTool("echo", async (a) => `echo: ${String(a.text ?? "")}`);

function session(
  hooks: SessionHooks,
  replies: readonly ScriptedReply[] | ((r: Request, i: number) => ScriptedReply),
) {
  const client = scriptedClient(replies);
  const s = new Session({
    profile: testProfile([echo]),
    environment: nodeEnvironment(dir),
    client,
    config: { hooks },
  });
  return { s, client, events: collect(s.events()) };
}

describe("session hooks (host callbacks)", () => {
  it("sessionStart and userPromptSubmit context reach the model beside the input", async () => {
    const seen: string[] = [];
    const { s, client } = session(
      {
        sessionStart: ({ source }) => {
          seen.push(`start:${source}`);
          return { additionalContext: "branch is main" };
        },
        userPromptSubmit: ({ prompt }) => {
          seen.push(`prompt:${prompt}`);
          return { action: "allow", additionalContext: "ticket ABC-1" };
        },
      },
      [{ text: "ok" }, { text: "again" }],
    );
    await s.submit("hello");
    await s.submit("more");
    expect(seen).toEqual(["start:startup", "prompt:hello", "prompt:more"]);
    expect(userTexts(client.requests[0]!)).toEqual(["hello", "branch is main", "ticket ABC-1"]);
    expect(userTexts(client.requests[1]!).slice(3)).toEqual(["more", "ticket ABC-1"]);
    await s.close();
  });

  it("a blocked prompt never reaches the model and the host is told why", async () => {
    const { s, client, events } = session(
      {
        userPromptSubmit: ({ prompt }) =>
          prompt.includes("secret") ? { action: "block", reason: "no secrets" } : undefined,
      },
      [{ text: "fine" }],
    );
    await s.submit("the secret is 42");
    await s.submit("ok now");
    await s.close();
    expect(client.requests).toHaveLength(1);
    expect(userTexts(client.requests[0]!)).toEqual(["ok now"]);
    const warnings = (await events).filter((e) => e.kind === "warning").map((e) => e.data);
    expect(warnings).toContainEqual({ code: "hook", message: expect.stringContaining("no secrets") });
  });

  it("preToolUse denies or rewrites before the host's beforeToolCall; postToolUse feedback reaches the model", async () => {
    const order: string[] = [];
    const client = scriptedClient([
      {
        toolCalls: [
          { name: "echo", args: { text: "rm" } },
          { name: "echo", args: { text: "a" } },
        ],
      },
      { text: "done" },
    ]);
    const s = new Session({
      profile: testProfile([echo]),
      environment: nodeEnvironment(dir),
      client,
      config: {
        hooks: {
          preToolUse: (call) => {
            order.push(`hook:${String(call.arguments.text)}`);
            if (call.arguments.text === "rm") return { action: "deny", message: "hook says no" };
            return { action: "rewrite", arguments: { text: "b" } };
          },
          postToolUse: (_call, result) => ({ feedback: `checked ${result.output}` }),
        },
        beforeToolCall: (call) => {
          order.push(`host:${String(call.arguments.text)}`);
          return undefined;
        },
      },
    });
    await s.submit("go");
    await s.close();
    expect(order).toEqual(["hook:rm", "hook:a", "host:b"]);
    expect(toolOutputs(client.requests[1]!)).toEqual(["hook says no", "echo: b\n\nchecked echo: b"]);
  });

  it("a stop hook sends the model back to work with its reason, and stop_hook_active is set the second time", async () => {
    const calls: boolean[] = [];
    const { s, client } = session(
      {
        stop: ({ stopHookActive }) => {
          calls.push(stopHookActive);
          return stopHookActive ? { action: "allow" } : { action: "continue", reason: "run the tests first" };
        },
      },
      [{ text: "done" }, { text: "tests pass, done" }],
    );
    await s.submit("fix it");
    await s.close();
    expect(calls).toEqual([false, true]);
    expect(userTexts(client.requests[1]!)).toEqual(["fix it", "run the tests first"]);
    expect(s.history.at(-1)).toMatchObject({ kind: "assistant", content: "tests pass, done" });
  });

  it("a failing or hanging-then-failing hook never loses the turn: warnings, and the answer stands", async () => {
    const boom = () => {
      throw new Error("hook exploded");
    };
    const { s, client, events } = session(
      {
        sessionStart: boom,
        userPromptSubmit: async () => {
          await new Promise((r) => setTimeout(r, 5));
          throw new Error("late failure");
        },
        stop: boom,
        postToolUse: boom,
        preCompact: boom,
        sessionEnd: boom,
      },
      [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, { text: "answer" }],
    );
    await s.submit("hi");
    await s.close();
    expect(userTexts(client.requests[0]!)).toEqual(["hi"]);
    expect(toolOutputs(client.requests[1]!)).toEqual(["echo: x"]);
    expect(s.history.at(-1)).toMatchObject({ kind: "assistant", content: "answer" });
    const all = await events;
    const messages = all
      .filter((e) => e.kind === "warning")
      .map((e) => (e.data as { message: string }).message);
    expect(messages).toEqual([
      "The SessionStart hook failed: hook exploded",
      "The UserPromptSubmit hook failed: late failure",
      "The PostToolUse hook failed: hook exploded",
      "The Stop hook failed: hook exploded",
      "The SessionEnd hook failed: hook exploded",
    ]);
    expect(all.at(-1)?.kind).toBe("session_end");
  });

  it("an interrupt stops waiting for a hook that never answers; the session stays usable", async () => {
    let calls = 0;
    const { s, client, events } = session(
      {
        userPromptSubmit: () => {
          calls++;
          return calls === 1 ? new Promise<undefined>(() => {}) : undefined;
        },
      },
      [{ text: "second answer" }],
    );
    const first = s.submit("stuck");
    await new Promise((r) => setTimeout(r, 10));
    await s.interrupt();
    await first;
    await s.submit("again");
    await s.close();
    expect(client.requests).toHaveLength(1);
    expect(userTexts(client.requests[0]!)).toEqual(["again"]);
    const all = await events;
    const ends = all.filter((e) => e.kind === "processing_end").map((e) => e.data.reason);
    expect(ends).toEqual(["aborted", "completed"]);
    // Not vetted by the hook, so never sent.
    expect(all.filter((e) => e.kind === "warning").map((e) => e.data)).toContainEqual({
      code: "hook",
      message: "The input was not sent: interrupted while the UserPromptSubmit hook ran.",
    });
  });

  it("halt stops the cycle; notify runs the notification hook; sessionEnd gets the reason", async () => {
    const seen: string[] = [];
    const { s, events } = session(
      {
        postToolUse: () => ({ halt: "build is broken, stopping" }),
        notification: ({ message }) => void seen.push(`notify:${message}`),
        sessionEnd: ({ reason }) => void seen.push(`end:${reason}`),
      },
      [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, { text: "never" }],
    );
    await s.submit("go");
    await s.notify("need input");
    await s.close();
    const all = await events;
    expect(all.find((e) => e.kind === "processing_end")?.data).toMatchObject({ reason: "aborted" });
    expect(all.filter((e) => e.kind === "warning").map((e) => e.data)).toContainEqual({
      code: "hook",
      message: "Stopped by a hook: build is broken, stopping",
    });
    expect(seen).toEqual(["notify:need input", "end:closed"]);
  });
});

describe("subagent types", () => {
  it("loads types from .claude/agents and .attractor/agents; spawn_agent lists them; the child gets prompt, tools and model", async () => {
    await mkdir(join(dir, ".claude", "agents", "review"), { recursive: true });
    await mkdir(join(dir, ".attractor", "agents"), { recursive: true });
    await writeFile(
      join(dir, ".claude", "agents", "review", "reviewer.md"),
      "---\nname: code-reviewer\ndescription: Reviews diffs for bugs.\ntools: Read, echo\nmodel: reviewer-model\n---\nYou are a strict reviewer.\n",
    );
    await writeFile(
      join(dir, ".attractor", "agents", "bad.md"),
      "---\ndescription: no name here\n---\nbody\n",
    );
    const { items: types, problems } = await loadSubagentTypes([
      join(dir, ".claude", "agents"),
      join(dir, ".attractor", "agents"),
    ]);
    expect(types.map((t) => [t.name, t.tools, t.model])).toEqual([
      ["code-reviewer", ["Read", "echo"], "reviewer-model"],
    ]);
    expect(problems).toEqual([
      { file: join(dir, ".attractor", "agents", "bad.md"), problem: expect.stringContaining("name") },
    ]);

    const script = (r: Request): ScriptedReply => {
      if (systemText(r).includes("You are a strict reviewer.")) {
        return toolOutputs(r).length === 0
          ? { toolCalls: [{ name: "echo", args: { text: "review" } }] }
          : { text: "LGTM" };
      }
      const outs = toolOutputs(r);
      if (outs.length === 0)
        return {
          toolCalls: [
            { name: "spawn_agent", args: { task: "review the diff", subagent_type: "code-reviewer" } },
          ],
        };
      if (outs.length === 1)
        return { toolCalls: [{ name: "wait", args: { agent_id: JSON.parse(outs[0]!).agent_id } }] };
      return { text: "parent done" };
    };
    const client = scriptedClient(script);
    const s = new Session({
      profile: testProfile([echo, fnTool("danger", async () => "boom"), ...subagentTools()]),
      environment: nodeEnvironment(dir),
      client,
      config: { subagentTypes: types },
    });
    const events = collect(s.events());
    await s.submit("review please");
    await s.close();
    const spawn = client.requests[0]!.tools?.find((t) => t.name === "spawn_agent");
    expect(spawn?.description).toContain("- code-reviewer: Reviews diffs for bugs.");
    const childRequests = client.requests.filter((r) => systemText(r).includes("You are a strict reviewer."));
    expect(childRequests).toHaveLength(2);
    expect(childRequests[0]!.model).toBe("reviewer-model");
    // The file's body is the child's system prompt, in place of the profile's base instructions.
    expect(systemText(childRequests[0]!)).not.toContain("You are a test agent.");
    expect(systemText(client.requests[0]!)).toContain("You are a test agent.");
    expect(childRequests[0]!.tools?.map((t) => t.name)).toEqual(["echo"]);
    expect(JSON.parse(toolOutputs(client.requests.at(-1)!)[1]!)).toMatchObject({
      output: "LGTM",
      success: true,
    });

    // The child's events reach the parent's stream, tagged from its first event on.
    const all = await events;
    const spawnCall = all.find((e) => e.kind === "tool_call_start" && e.data.toolName === "spawn_agent");
    const forwarded = all.filter((e) => e.kind === "subagent_event");
    expect(forwarded[0]?.data).toMatchObject({
      agentType: "code-reviewer",
      parentCallId: spawnCall?.kind === "tool_call_start" ? spawnCall.data.callId : "?",
      event: { kind: "session_start" },
    });
    const kinds = forwarded.map((e) => (e.kind === "subagent_event" ? e.data.event.kind : ""));
    expect(kinds).toContain("tool_call_end");
    expect(kinds).toContain("processing_end");
  });

  it("a child runs tool and SubagentStop hooks, not the parent's session and prompt hooks", async () => {
    const seen: string[] = [];
    const script = (r: Request): ScriptedReply => {
      if (userTexts(r)[0] === "child task") return { text: "child done" };
      const outs = toolOutputs(r);
      if (outs.length === 0) return { toolCalls: [{ name: "spawn_agent", args: { task: "child task" } }] };
      if (outs.length === 1)
        return { toolCalls: [{ name: "wait", args: { agent_id: JSON.parse(outs[0]!).agent_id } }] };
      return { text: "parent done" };
    };
    const s = new Session({
      profile: testProfile([...subagentTools()]),
      environment: nodeEnvironment(dir),
      client: scriptedClient(script),
      config: {
        hooks: {
          sessionStart: () => void seen.push("start"),
          userPromptSubmit: ({ prompt }) => void seen.push(`prompt:${prompt}`),
          stop: ({ lastMessage }) => void seen.push(`stop:${lastMessage}`),
          subagentStop: ({ agentId, lastMessage }) =>
            void seen.push(`subagentStop:${agentId.length > 0}:${lastMessage}`),
          sessionEnd: () => void seen.push("end"),
        },
      },
    });
    await s.submit("delegate");
    await s.close();
    expect(seen).toEqual([
      "start",
      "prompt:delegate",
      "subagentStop:true:child done",
      "stop:parent done",
      "end",
    ]);
  });

  it("an unknown subagent_type is an error result listing the known ones", async () => {
    const client = scriptedClient([
      { toolCalls: [{ name: "spawn_agent", args: { task: "x", subagent_type: "nope" } }] },
      { text: "ok" },
    ]);
    const s = new Session({
      profile: testProfile([...subagentTools()]),
      environment: nodeEnvironment(dir),
      client,
      config: { subagentTypes: [{ name: "helper", description: "helps", prompt: "help" }] },
    });
    await s.submit("go");
    await s.close();
    expect(toolOutputs(client.requests[1]!)[0]).toContain("Unknown subagent_type: nope (available: helper)");
  });
});

describe("skills", () => {
  it("puts only names and descriptions in the prompt; the skill tool loads the body and bundled files", async () => {
    const skillDir = join(dir, ".claude", "skills", "pdf");
    await mkdir(join(skillDir, "scripts"), { recursive: true });
    await writeFile(
      join(skillDir, "SKILL.md"),
      "---\nname: pdf-tools\ndescription: Fill and merge PDF forms.\n---\n# PDF\nRun scripts/fill.py with the form.\n",
    );
    await writeFile(join(skillDir, "scripts", "fill.py"), "print('filled')\n");
    const { items: skills } = await loadSkills([
      join(dir, ".attractor", "skills"),
      join(dir, ".claude", "skills"),
    ]);
    expect(skills.map((k) => k.name)).toEqual(["pdf-tools"]);
    const client = scriptedClient([
      { toolCalls: [{ name: "skill", args: { name: "pdf-tools" } }] },
      { toolCalls: [{ name: "skill", args: { name: "pdf-tools", file: "scripts/fill.py" } }] },
      { toolCalls: [{ name: "skill", args: { name: "pdf-tools", file: "../../../etc/passwd" } }] },
      { text: "done" },
    ]);
    const s = new Session({
      profile: testProfile([createSkillTool(() => skills)]),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client,
      config: { skills },
    });
    await s.submit("fill the form");
    await s.close();
    const system = systemText(client.requests[0]!);
    expect(system).toContain("- pdf-tools: Fill and merge PDF forms.");
    expect(system).not.toContain("Run scripts/fill.py");
    const outputs = toolOutputs(client.requests[3]!);
    expect(outputs[0]).toContain("Run scripts/fill.py with the form.");
    expect(outputs[0]).toContain("- scripts/fill.py");
    expect(outputs[1]).toBe("print('filled')\n");
    expect(outputs[2]).toContain("outside the skill's folder");
  });
});
