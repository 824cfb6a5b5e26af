// The cross-provider parity matrix (spec 9.12): each row runs a Session with a provider's own
// profile, through the real Client and adapter, against a local server speaking that provider's
// wire protocol, in a real temp directory with LocalExecutionEnvironment.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { startWireServer, type WireServer } from "@attractor/llm/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LocalExecutionEnvironment } from "../src/environment/local.js";
import { Session } from "../src/session/session.js";
import { type ModelReply, WIRE_PROVIDERS, type WireView } from "../src/testing/index.js";
import type { SessionConfig } from "../src/types/config.js";
import type { SessionEvent } from "../src/types/events.js";
import { collect, tempDir } from "./support/fixtures.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer([]);
});
afterAll(() => server.close());

const LOOP_WARNING = "Loop detected: the last 10 tool calls follow a repeating pattern.";
const endsOf = (events: readonly SessionEvent[]) =>
  events.flatMap((e) => (e.kind === "tool_call_end" ? [e.data] : []));

describe.each(WIRE_PROVIDERS)("parity matrix: $id profile through its real adapter", (provider) => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, remove: cleanup } = await tempDir());
    server.requests.length = 0;
    return () => cleanup();
  });
  const at = (...p: string[]) => path.join(dir, ...p);

  /** Runs one input to completion; the script answers each request from what it carries. */
  async function run(
    input: string,
    script: (view: WireView) => ModelReply,
    options: {
      config?: Partial<SessionConfig>;
      watch?: (session: Session, event: SessionEvent) => void;
    } = {},
  ) {
    server.setHandler((request) => provider.reply(script(provider.read(request))));
    const session = new Session({
      profile: provider.profile(),
      environment: new LocalExecutionEnvironment({ workingDirectory: dir }),
      client: provider.client(server.url),
      retry: { maxRetries: 0 },
      ...(options.config !== undefined && { config: options.config }),
    });
    const watch = options.watch;
    if (watch) session.subscribe((event) => watch(session, event));
    const all = collect(session.events());
    await session.submit(input);
    const state = session.state;
    await session.close();
    const events = await all;
    const errors = events.filter((e) => e.kind === "error");
    expect(errors.map((e) => e.data)).toEqual([]);
    return { session, state, events, views: server.requests.map((r) => provider.read(r)) };
  }

  it("offers the profile's tools, system prompt and project docs in the provider's request", async () => {
    await writeFile(at("AGENTS.md"), "Always run the tests.");
    await writeFile(at("CLAUDE.md"), "claude-only note");
    await writeFile(at("GEMINI.md"), "gemini-only note");
    await mkdir(at(".codex"));
    await writeFile(at(".codex", "instructions.md"), "codex-only note");
    const { views, session } = await run("hi", () => ({ text: "Hello." }));
    const [view] = views;
    expect(view!.tools).toEqual(session.profile.toolRegistry.names());
    expect(view!.system).toContain(`Working directory: ${dir}`);
    expect(view!.system).toContain("Always run the tests.");
    // CLAUDE.md and GEMINI.md are read whatever the provider; .codex/instructions.md is codex's own.
    expect(view!.system).toContain("claude-only note");
    expect(view!.system).toContain("gemini-only note");
    if (provider.id === "openai") expect(view!.system).toContain("codex-only note");
    else expect(view!.system).not.toContain("codex-only note");
    expect(view!.userTexts).toEqual(["hi"]);
  });

  it("creates a file", async () => {
    const file = at("hello.py");
    const { views, events } = await run("Create hello.py", (v) =>
      v.toolResults.length === 0
        ? { calls: [{ name: "write_file", args: { file_path: file, content: "print('Hello World')\n" } }] }
        : { text: "Created hello.py." },
    );
    expect(await readFile(file, "utf8")).toBe("print('Hello World')\n");
    expect(views).toHaveLength(2);
    expect(views[1]!.toolResults).toMatchObject([{ isError: false }]);
    expect(
      events.find((e) => e.kind === "assistant_text_end" && e.data.text === "Created hello.py."),
    ).toBeDefined();
  });

  it("reads a file, edits it in the provider's editing format and verifies with the shell", async () => {
    const file = at("notes.txt");
    await writeFile(file, "alpha\nbeta\ngamma\n");
    const { views } = await run("Capitalise beta", (v) => {
      switch (v.toolResults.length) {
        case 0:
          return { calls: [{ name: "read_file", args: { file_path: file } }] };
        case 1:
          return { calls: provider.edit(file, "notes.txt", "beta", "BETA") };
        case 2:
          return { calls: [{ name: "shell", args: { command: "cat notes.txt" } }] };
        default:
          return { text: "Done." };
      }
    });
    expect(await readFile(file, "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(views[1]!.toolResults[0]!.output).toMatch(/2.*beta/);
    expect(views[2]!.toolResults[1]).toMatchObject({ isError: false });
    expect(views[3]!.toolResults[2]!.output).toContain("alpha\nBETA\ngamma");
  });

  it("edits several files in one session, two in one response", async () => {
    await writeFile(at("a.txt"), "one\n");
    await writeFile(at("b.txt"), "two\n");
    const { views } = await run("Number words to digits", (v) =>
      v.toolResults.length === 0
        ? {
            calls: [
              ...provider.edit(at("a.txt"), "a.txt", "one", "1"),
              ...provider.edit(at("b.txt"), "b.txt", "two", "2"),
            ],
          }
        : { text: "Both changed." },
    );
    expect(await readFile(at("a.txt"), "utf8")).toBe("1\n");
    expect(await readFile(at("b.txt"), "utf8")).toBe("2\n");
    expect(views[1]!.toolResults.map((r) => r.isError)).toEqual([false, false]);
  });

  it("runs a shell command", async () => {
    const { views } = await run("Compute", (v) =>
      v.toolResults.length === 0
        ? { calls: [{ name: "shell", args: { command: "echo $((6 * 7))" } }] }
        : { text: "It is 42." },
    );
    expect(views[1]!.toolResults[0]).toMatchObject({ isError: false });
    expect(views[1]!.toolResults[0]!.output).toMatch(/^42\nExit code: 0/);
  });

  it("reports a shell timeout to the model, which carries on", async () => {
    const { views, state } = await run("Wait", (v) =>
      v.toolResults.length === 0
        ? { calls: [{ name: "shell", args: { command: "echo started; sleep 5", timeout_ms: 300 } }] }
        : { text: "That took too long." },
    );
    const [result] = views[1]!.toolResults;
    expect(result!.isError).toBe(true);
    expect(result!.output).toContain("started");
    expect(result!.output).toContain("[ERROR: Command timed out after 300ms. Partial output is shown above.");
    expect(state).toBe("idle");
  });

  it("finds files with glob and grep", async () => {
    await mkdir(at("src"));
    await writeFile(at("src", "a.ts"), "// TODO: one\n");
    await writeFile(at("src", "b.ts"), "export const b = 1;\n");
    await writeFile(at("notes.md"), "TODO two\n");
    const { views } = await run("Find the TODOs", (v) => {
      if (v.toolResults.length === 0) return { calls: [{ name: "glob", args: { pattern: "**/*.ts" } }] };
      if (v.toolResults.length === 1) return { calls: [{ name: "grep", args: { pattern: "TODO" } }] };
      return { text: "Two TODOs." };
    });
    const globbed = views[1]!.toolResults[0]!.output.split("\n").sort();
    expect(globbed).toEqual(["src/a.ts", "src/b.ts"]);
    const grepped = views[2]!.toolResults[1]!.output.split("\n").sort();
    expect(grepped).toEqual(["notes.md:1:TODO two", "src/a.ts:1:// TODO: one"]);
  });

  it("truncates a large output for the model with the marker; TOOL_CALL_END keeps it whole", async () => {
    const file = at("big.txt");
    const lines = Array.from({ length: 1500 }, (_, i) => `line ${i + 1} ${"x".repeat(40)}`);
    await writeFile(file, `${lines.join("\n")}\n`);
    const { views, events } = await run("Read big.txt", (v) =>
      v.toolResults.length === 0
        ? { calls: [{ name: "read_file", args: { file_path: file } }] }
        : { text: "It is big." },
    );
    const [end] = endsOf(events);
    expect(end!.truncated).toBe(true);
    expect(end!.output.length).toBeGreaterThan(60_000);
    expect(end!.output).toContain("line 1500 ");
    expect(end!.output).not.toContain("[WARNING: Tool output was truncated.");
    const sent = views[1]!.toolResults[0]!.output;
    expect(sent).toContain("[WARNING: Tool output was truncated.");
    expect(sent).toContain("characters were removed from the middle");
    expect(sent.length).toBeLessThan(50_500);
    expect(sent).toContain("line 1 ");
    expect(sent).toContain("line 1500 ");
  });

  it("runs parallel tool calls together and returns every result in one continuation", async () => {
    await writeFile(at("x.txt"), "from x\n");
    await writeFile(at("y.txt"), "from y\n");
    const { views, events } = await run("Read both", (v) =>
      v.toolResults.length === 0
        ? {
            calls: [
              { name: "read_file", args: { file_path: at("x.txt") } },
              { name: "read_file", args: { file_path: at("y.txt") } },
            ],
          }
        : { text: "Read." },
    );
    const order = events.flatMap((e) =>
      e.kind === "tool_call_start" || e.kind === "tool_call_end" ? [e.kind] : [],
    );
    expect(order).toEqual(["tool_call_start", "tool_call_start", "tool_call_end", "tool_call_end"]);
    const results = views[1]!.toolResults;
    expect(results.map((r) => r.output)).toEqual([
      expect.stringContaining("from x"),
      expect.stringContaining("from y"),
    ]);
    expect(views).toHaveLength(2);
    const body = views[1]!.body;
    if (provider.id === "anthropic") {
      const last = body.messages.at(-1);
      expect(last.role).toBe("user");
      expect(last.content.map((b: { type: string }) => b.type)).toEqual(["tool_result", "tool_result"]);
    } else if (provider.id === "gemini") {
      const last = body.contents.at(-1);
      expect(last.parts.map((p: object) => Object.keys(p))).toEqual([
        ["functionResponse"],
        ["functionResponse"],
      ]);
    } else {
      const outputs = body.input.filter((i: { type?: string }) => i.type === "function_call_output");
      const calls = body.input.filter((i: { type?: string }) => i.type === "function_call");
      expect(outputs.map((o: { call_id: string }) => o.call_id)).toEqual(
        calls.map((c: { call_id: string }) => c.call_id),
      );
    }
  });

  it("injects steering after the current tool round as a user message", async () => {
    const steer = "Actually, only create a /health endpoint.";
    const { views, events } = await run(
      "Build a web app",
      (v) =>
        v.toolResults.length === 0
          ? { calls: [{ name: "shell", args: { command: "sleep 0.1; echo planned" } }] }
          : { text: v.userTexts.includes(steer) ? "Only /health then." : "Full app." },
      {
        watch: (session, e) => {
          if (e.kind === "tool_call_start") session.steer(steer);
        },
      },
    );
    expect(views[1]!.userTexts.at(-1)).toBe(steer);
    expect(views[0]!.userTexts).not.toContain(steer);
    const kinds = events.map((e) => e.kind);
    expect(kinds.indexOf("steering_injected")).toBeGreaterThan(kinds.indexOf("tool_call_end"));
    expect(
      events.find((e) => e.kind === "assistant_text_end" && e.data.text === "Only /health then."),
    ).toBeDefined();
  });

  it("applies a reasoning-effort change on the next call and sends reasoning back", async () => {
    const { views } = await run(
      "Think about it",
      (v) =>
        v.toolResults.length === 0
          ? {
              reasoning: "Let me check the date first.",
              calls: [{ name: "shell", args: { command: "echo ok" } }],
            }
          : { text: "Done thinking." },
      {
        config: { reasoningEffort: "low" },
        watch: (session, e) => {
          if (e.kind === "tool_call_start") session.setReasoningEffort("high");
        },
      },
    );
    const [first, second] = [views[0]!.reasoning, views[1]!.reasoning];
    if (provider.id === "anthropic") {
      expect([first, second]).toEqual(["low", "high"]);
      expect(views[1]!.body.thinking).toEqual({ type: "adaptive" });
      const assistant = views[1]!.body.messages.find((m: { role: string }) => m.role === "assistant");
      expect(assistant.content[0]).toMatchObject({
        type: "thinking",
        thinking: "Let me check the date first.",
      });
      expect(assistant.content[0].signature).toMatch(/^sig_/);
    } else if (provider.id === "openai") {
      expect([first, second]).toEqual(["low", "high"]);
      const item = views[1]!.body.input.find((i: { type?: string }) => i.type === "reasoning");
      expect(item.encrypted_content).toMatch(/^enc_/);
    } else {
      expect([first, second]).toEqual(["LOW", "HIGH"]);
    }
  });

  it("spawns a subagent, waits for it and gets its result as a tool result", async () => {
    const task = "Write child.txt containing hi";
    const { views, session } = await run("Delegate the file", (v) => {
      if (v.userTexts[0] === task) {
        return v.toolResults.length === 0
          ? { calls: [{ name: "write_file", args: { file_path: at("child.txt"), content: "hi\n" } }] }
          : { text: "child finished" };
      }
      if (v.toolResults.length === 0) return { calls: [{ name: "spawn_agent", args: { task } }] };
      if (v.toolResults.length === 1) {
        const { agent_id } = JSON.parse(v.toolResults[0]!.output) as { agent_id: string };
        return { calls: [{ name: "wait", args: { agent_id } }] };
      }
      return { text: "The subagent wrote it." };
    });
    expect(await readFile(at("child.txt"), "utf8")).toBe("hi\n");
    const parent = views.filter((v) => v.userTexts[0] !== task);
    const child = views.filter((v) => v.userTexts[0] === task);
    expect(child).toHaveLength(2);
    expect(child[0]!.tools).not.toContain("spawn_agent");
    expect(JSON.parse(parent.at(-1)!.toolResults[1]!.output)).toMatchObject({
      output: "child finished",
      success: true,
      turns_used: 2,
    });
    expect(session.subagents.list().map((s) => s.status)).toEqual(["completed"]);
  });

  it("detects a loop of repeated calls and warns the model with a user message", async () => {
    await writeFile(at("same.txt"), "same\n");
    const { views, events } = await run("Loop", (v) =>
      v.userTexts.some((t) => t.startsWith(LOOP_WARNING))
        ? { text: "I will try something else." }
        : { calls: [{ name: "read_file", args: { file_path: at("same.txt") } }] },
    );
    expect(events.filter((e) => e.kind === "loop_detection")).toHaveLength(1);
    expect(views).toHaveLength(11);
    expect(views[10]!.userTexts.at(-1)).toMatch(new RegExp(`^${LOOP_WARNING.replace(/[.]/g, "\\.")}`));
    expect(views[9]!.userTexts.some((t) => t.startsWith(LOOP_WARNING))).toBe(false);
  });

  it("recovers from an invalid tool call and a failing edit", async () => {
    const file = at("code.txt");
    await writeFile(file, "let x = 1;\n");
    const editTool = provider.id === "openai" ? "apply_patch" : "edit_file";
    const invalid = provider.id === "openai" ? {} : { file_path: file };
    const { views } = await run("Set x to 2", (v) => {
      switch (v.toolResults.length) {
        case 0:
          return { calls: [{ name: editTool, args: invalid }] };
        case 1:
          return { calls: provider.edit(file, "code.txt", "let x = 3;", "let x = 2;") };
        case 2:
          return { calls: provider.edit(file, "code.txt", "let x = 1;", "let x = 2;") };
        default:
          return { text: "Fixed." };
      }
    });
    expect(views[1]!.toolResults[0]).toMatchObject({ isError: true });
    expect(views[1]!.toolResults[0]!.output).toMatch(new RegExp(`Invalid arguments for tool: ${editTool}`));
    expect(views[2]!.toolResults[1]).toMatchObject({ isError: true });
    expect(views[3]!.toolResults[2]).toMatchObject({ isError: false });
    expect(await readFile(file, "utf8")).toBe("let x = 2;\n");
  });

  it("round-trips a tool call and its result in the provider's own wire format", async () => {
    const { views } = await run("Say hi", (v) =>
      v.toolResults.length === 0
        ? { calls: [{ name: "shell", args: { command: "echo hi" } }] }
        : { text: "Said hi." },
    );
    const body = views[1]!.body;
    if (provider.id === "openai") {
      const i = body.input.findIndex((x: { type?: string }) => x.type === "function_call");
      const call = body.input[i];
      expect(call).toMatchObject({ type: "function_call", name: "shell" });
      expect(JSON.parse(call.arguments)).toEqual({ command: "echo hi" });
      expect(body.input[i + 1]).toMatchObject({ type: "function_call_output", call_id: call.call_id });
      expect(body.input[i + 1].output).toMatch(/^hi\nExit code: 0/);
    } else if (provider.id === "anthropic") {
      const i = body.messages.findIndex((m: { role: string }) => m.role === "assistant");
      const use = body.messages[i].content.find((b: { type: string }) => b.type === "tool_use");
      expect(use).toMatchObject({ name: "shell", input: { command: "echo hi" } });
      const reply = body.messages[i + 1];
      expect(reply.role).toBe("user");
      expect(reply.content[0]).toMatchObject({ type: "tool_result", tool_use_id: use.id, is_error: false });
      expect(JSON.stringify(reply.content[0].content)).toContain("hi\\nExit code: 0");
    } else {
      const i = body.contents.findIndex((c: { role: string }) => c.role === "model");
      // The scripted Gemini 3 reply carried no thought signature, so the documented dummy goes back.
      expect(body.contents[i].parts).toEqual([
        {
          functionCall: { name: "shell", args: { command: "echo hi" } },
          thoughtSignature: "skip_thought_signature_validator",
        },
      ]);
      const reply = body.contents[i + 1];
      expect(reply.role).toBe("user");
      expect(reply.parts[0].functionResponse).toMatchObject({ name: "shell" });
      expect(reply.parts[0].functionResponse.response.result).toMatch(/^hi\nExit code: 0/);
    }
  });
});
