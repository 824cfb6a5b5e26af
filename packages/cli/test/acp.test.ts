import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { probeBubblewrap } from "@attractor/agent";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  BUGGY_LINE,
  BUGGY_MATH,
  buggyProject,
  cleanEnv,
  editCall,
  FIXED_LINE,
  FIXED_MATH,
  replyFor,
  requireBuiltCli,
  type ScriptedModel,
  startScriptedModel,
  TEST_JS,
} from "../src/testing/index.js";
import { connectEditor, type EditorOptions, type TestEditor } from "./support/acp-client.js";

const require = createRequire(import.meta.url);
const serverEntry = (pkg: string) =>
  join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");

let model: ScriptedModel;
let project: { root: string; project: string; remove: () => Promise<void> };
let editor: TestEditor | undefined;

beforeAll(async () => {
  requireBuiltCli();
  model = await startScriptedModel("anthropic");
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  project = await buggyProject();
  model.server.requests.length = 0;
});
afterEach(async () => {
  await editor?.close();
  editor = undefined;
  await project.remove();
});

const mathPath = () => join(project.project, "src", "math.js");

async function connect(options: Partial<EditorOptions> = {}): Promise<TestEditor> {
  editor = await connectEditor({
    cwd: project.project,
    env: cleanEnv(project.root, model.env()),
    ...options,
  });
  return editor;
}

const toolCalls = (updates: readonly SessionUpdate[]) =>
  updates.filter(
    (u): u is Extract<SessionUpdate, { sessionUpdate: "tool_call" }> => u.sessionUpdate === "tool_call",
  );
const toolUpdates = (updates: readonly SessionUpdate[], id: string) =>
  updates.filter(
    (u): u is Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }> =>
      u.sessionUpdate === "tool_call_update" && u.toolCallId === id,
  );
const messageText = (updates: readonly SessionUpdate[]) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) =>
      u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "",
    )
    .join("");

describe("attractor acp: initialize and sessions", () => {
  it("negotiates the protocol and states its capabilities and auth methods", async () => {
    const { startEditor } = await import("./support/acp-client.js");
    editor = startEditor({ cwd: project.project, env: cleanEnv(project.root, model.env()) });
    // An editor asking for a later version than there is gets the agent's own.
    const answer = await editor.connection.initialize({ protocolVersion: 7, clientCapabilities: {} });
    expect(answer.protocolVersion).toBe(1);
    expect(answer.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    });
    const descriptions = (answer.authMethods ?? []).map((m) => ("description" in m ? m.description : ""));
    expect(descriptions.join("\n")).toContain("ANTHROPIC_API_KEY");
    expect(descriptions.join("\n")).toContain("OPENAI_API_KEY");
    expect(answer.agentInfo?.name).toBe("attractor");
    // The key of the scripted provider is set; OpenAI's is not, and the error says which variable.
    await editor.connection.authenticate({ methodId: "env:anthropic" });
    const missing = await editor.connection.authenticate({ methodId: "env:openai" }).catch((err) => err);
    expect(missing).toMatchObject({ code: -32000 });
    expect(String(missing.message)).toContain("OPENAI_API_KEY");
  });

  it("session/new answers modes and models, then offers built-in, custom and skill commands", async () => {
    await mkdir(join(project.project, ".attractor", "commands"), { recursive: true });
    await writeFile(
      join(project.project, ".attractor", "commands", "review.md"),
      "---\ndescription: Review the staged changes\n---\nReview $ARGUMENTS\n",
    );
    await mkdir(join(project.project, ".attractor", "skills", "release-notes"), { recursive: true });
    await writeFile(
      join(project.project, ".attractor", "skills", "release-notes", "SKILL.md"),
      "---\ndescription: Write release notes from the git log\n---\nRead git log.\n",
    );
    const e = await connect();
    const session = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    expect(session.sessionId).toMatch(/\S/);
    expect(session.modes?.currentModeId).toBe("normal");
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(["plan", "normal", "auto-edit", "yolo"]);
    const modelOption = session.configOptions?.find((o) => o.id === "model");
    expect(modelOption).toMatchObject({
      category: "model",
      type: "select",
      currentValue: "claude-sonnet-5-5",
    });
    // The modes again as a config option, for clients that use those instead.
    expect(session.configOptions?.find((o) => o.id === "mode")).toMatchObject({
      category: "mode",
      currentValue: "normal",
    });

    const commands = await e.waitFor((u) => u.sessionUpdate === "available_commands_update");
    const names =
      commands.sessionUpdate === "available_commands_update"
        ? commands.availableCommands.map((c) => c.name)
        : [];
    expect(names).toEqual(
      expect.arrayContaining(["compact", "cost", "undo", "mode", "review", "release-notes"]),
    );
    // Commands that need the terminal are not offered.
    expect(names).not.toContain("exit");
    expect(names).not.toContain("copy");
  });

  it("session/new without a provider key fails with a JSON-RPC error naming the variables", async () => {
    const e = await connect({ env: cleanEnv(project.root) });
    const error = await e.connection.newSession({ cwd: project.project, mcpServers: [] }).catch((err) => err);
    expect(error).toMatchObject({ code: -32000 });
    expect(String(error.message)).toContain("ANTHROPIC_API_KEY");
  });

  it("session/set_mode switches the mode, reported with current_mode_update, and the policy follows it", async () => {
    const e = await connect();
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    await e.connection.setSessionMode({ sessionId, modeId: "auto-edit" });
    await e.waitFor((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "auto-edit");
    // In auto-edit mode an edit inside the project runs without asking.
    model.script([
      { calls: [editCall("anthropic", "src/math.js", BUGGY_LINE, FIXED_LINE)] },
      { text: "Done." },
    ]);
    const answer = await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "fix add" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(e.permissionRequests).toHaveLength(0);
    expect(await readFile(mathPath(), "utf8")).toBe(FIXED_MATH);
    const unknown = await e.connection.setSessionMode({ sessionId, modeId: "turbo" }).catch((err) => err);
    expect(unknown).toMatchObject({ code: -32602 });
    // The same switch through the mode config option.
    const options = await e.connection.setSessionConfigOption({ sessionId, configId: "mode", value: "plan" });
    expect(options.configOptions.find((o) => o.id === "mode")?.currentValue).toBe("plan");
    await e.waitFor((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "plan");
    await e.waitFor(
      (u) =>
        u.sessionUpdate === "config_option_update" &&
        u.configOptions.some((o) => o.id === "mode" && o.currentValue === "plan"),
    );
  });
});

describe("attractor acp: MCP servers", () => {
  it("the editor's servers join the session; a project server waits for its approval as everywhere", async () => {
    await writeFile(
      join(project.project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          files: {
            command: process.execPath,
            args: [serverEntry("@modelcontextprotocol/server-filesystem"), "."],
          },
        },
      }),
    );
    const e = await connect({ answers: ["allow_once"] });
    const { sessionId } = await e.connection.newSession({
      cwd: project.project,
      mcpServers: [
        {
          name: "everything",
          command: process.execPath,
          args: [serverEntry("@modelcontextprotocol/server-everything"), "stdio"],
          env: [],
        },
      ],
    });
    model.script([
      { calls: [{ name: "mcp__everything__echo", args: { message: "from the editor's server" } }] },
      { text: "Echoed." },
    ]);
    const answer = await e.connection.prompt({
      sessionId,
      prompt: [{ type: "text", text: "echo something" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    const tools = model.seen()[0]?.tools ?? [];
    expect(tools).toContain("mcp__everything__echo");
    expect(tools.some((t) => t.startsWith("mcp__files__"))).toBe(false);
    expect(e.stderr()).toContain('MCP server "files"');
    // An MCP tool asks in normal mode, as in the terminal.
    expect(e.permissionRequests[0]?.toolCall.title).toContain("mcp__everything__echo");
    expect(model.seen().at(-1)?.toolResults.at(-1)).toContain("from the editor's server");
  });
});

describe("attractor acp: a prompt turn", () => {
  it("streams the edit and the command, asks permission for each, and honours allow and reject", async () => {
    const e = await connect({ answers: ["allow_once", "reject_once"] });
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([
      { calls: [editCall("anthropic", "src/math.js", BUGGY_LINE, FIXED_LINE)] },
      {
        expect: (r) => (/error|denied/i.test(r.at(-1) ?? "") ? `edit failed: ${r.at(-1)}` : undefined),
        calls: [{ name: "shell", args: { command: "node test.js" } }],
      },
      { text: "Fixed the bug; you declined the test run." },
    ]);
    const answer = await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "Fix add()." }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(await readFile(mathPath(), "utf8")).toBe(FIXED_MATH);

    // Two permission requests: the edit (with its diff) and the command, each with the three choices.
    expect(e.permissionRequests).toHaveLength(2);
    const [editAsk, shellAsk] = e.permissionRequests;
    expect(editAsk?.toolCall.kind).toBe("edit");
    expect(editAsk?.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(editAsk?.toolCall.content).toContainEqual({
      type: "diff",
      path: mathPath(),
      oldText: BUGGY_MATH,
      newText: FIXED_MATH,
    });
    expect(shellAsk?.toolCall.kind).toBe("execute");
    expect(JSON.stringify(shellAsk?.toolCall.content)).toContain("node test.js");

    const updates = e.updates(sessionId);
    const [edit, shell] = toolCalls(updates);
    expect(edit).toMatchObject({ kind: "edit", status: "pending", locations: [{ path: mathPath() }] });
    const editDone = toolUpdates(updates, edit?.toolCallId ?? "");
    expect(editDone.map((u) => u.status).filter(Boolean)).toEqual(["in_progress", "completed"]);
    const final = editDone.at(-1);
    expect(final?.content).toContainEqual<ToolCallContent>({
      type: "diff",
      path: mathPath(),
      oldText: BUGGY_MATH,
      newText: FIXED_MATH,
    });
    expect(final?.locations).toEqual([{ path: mathPath(), line: 2 }]);

    expect(shell).toMatchObject({ kind: "execute", title: "shell node test.js" });
    // Refused: it never ran, so it goes from pending straight to failed.
    const shellDone = toolUpdates(updates, shell?.toolCallId ?? "");
    expect(shellDone.map((u) => u.status).filter(Boolean)).toEqual(["failed"]);
    expect(messageText(updates)).toContain("you declined the test run");
    // The model was told the command was refused.
    expect(model.seen().at(-1)?.toolResults.at(-1)).toMatch(/denied|declined|reject/i);
    expect(e.strayStdout()).toEqual([]);
  });

  it("allow_always adds the same rule the terminal adds: the same command is not asked again", async () => {
    const e = await connect({ answers: ["allow_always"] });
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { calls: [{ name: "shell", args: { command: "node test.js" } }] },
      { text: "Ran it twice." },
    ]);
    await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "run the test twice" }] });
    expect(e.permissionRequests).toHaveLength(1);
    const always = e.permissionRequests[0]?.options.find((o) => o.kind === "allow_always");
    expect(always?.name).toContain("shell(node test.js");
    const results = model.seen().at(-1)?.toolResults ?? [];
    expect(results.filter((r) => r.includes("FAIL: add(2, 3) returned -1"))).toHaveLength(2);
    // The command's output is shown in the editor.
    const updates = e.updates(sessionId);
    const shellEnd = toolUpdates(updates, toolCalls(updates)[0]?.toolCallId ?? "").at(-1);
    expect(JSON.stringify(shellEnd?.content)).toContain("FAIL: add(2, 3) returned -1");
  });

  it("reports the todo list as a plan, and the todo call as a think call", async () => {
    const e = await connect();
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([
      {
        calls: [
          {
            name: "todo",
            args: {
              todos: [
                { id: "1", content: "Read math.js", status: "completed" },
                { id: "2", content: "Fix add()", status: "in_progress" },
              ],
            },
          },
        ],
      },
      { text: "Planned." },
    ]);
    await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "plan it" }] });
    const plan = await e.waitFor((u) => u.sessionUpdate === "plan");
    expect(plan).toMatchObject({
      entries: [
        { content: "Read math.js", status: "completed" },
        { content: "Fix add()", status: "in_progress" },
      ],
    });
    expect(toolCalls(e.updates(sessionId))[0]?.kind).toBe("think");
  });

  it("an embedded selection reaches the model as the user's attached context", async () => {
    const e = await connect();
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([{ text: "That line subtracts." }]);
    await e.connection.prompt({
      sessionId,
      prompt: [
        { type: "text", text: "What is wrong with this line?" },
        {
          type: "resource",
          resource: {
            uri: `${pathToFileURL(mathPath()).href}#L2`,
            mimeType: "text/javascript",
            text: BUGGY_LINE,
          },
        },
      ],
    });
    const sent = model.seen().at(-1)?.userTexts.join("\n") ?? "";
    expect(sent).toContain(
      `<attached-file path="src/math.js" lines="2-2">\n2\t${BUGGY_LINE}\n</attached-file>`,
    );
    expect(sent).toContain("The user attached the content above");
    expect(sent).toContain("What is wrong with this line?");
  });

  it("images go as image parts and a linked file is attached as the user's context", async () => {
    const e = await connect();
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([{ text: "Seen." }]);
    // A 1x1 PNG.
    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await e.connection.prompt({
      sessionId,
      prompt: [
        { type: "text", text: "Compare the screenshot with the code." },
        { type: "image", mimeType: "image/png", data: png },
        { type: "resource_link", name: "math.js", uri: pathToFileURL(mathPath()).href },
      ],
    });
    const body = model.seen().at(-1)?.body;
    const content = body.messages.at(-1).content as { type: string; source?: { data?: string } }[];
    expect(content.find((part) => part.type === "image")?.source?.data).toBe(png);
    const sent = model.seen().at(-1)?.userTexts.join("\n") ?? "";
    expect(sent).toContain(`<attached-file path="src/math.js">\n1\tfunction add(a, b) {\n2\t${BUGGY_LINE}`);
    expect(sent).toContain("Compare the screenshot with the code.");
  });

  it("the model is switched through the config option; a model of another provider is refused", async () => {
    const e = await connect();
    const session = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    const option = session.configOptions?.find((o) => o.id === "model");
    const other =
      option?.type === "select"
        ? (option.options as { value: string }[]).map((o) => o.value).find((v) => v !== option.currentValue)
        : undefined;
    expect(other).toBeDefined();
    const switched = await e.connection.setSessionConfigOption({
      sessionId: session.sessionId,
      configId: "model",
      value: other as string,
    });
    expect(switched.configOptions.find((o) => o.id === "model")?.currentValue).toBe(other);
    model.script([{ text: "ok" }]);
    await e.connection.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(model.seen().at(-1)?.model).toBe(other);
    const refused = await e.connection
      .setSessionConfigOption({ sessionId: session.sessionId, configId: "model", value: "gpt-6.2-sol" })
      .catch((err) => err);
    expect(refused).toMatchObject({ code: -32602 });
    expect(String(refused.message)).toContain("--provider openai");
  });

  it("a key the provider refuses fails the prompt with a JSON-RPC error saying which variable to check", async () => {
    const e = await connect();
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([
      {
        raw: {
          kind: "json",
          status: 401,
          body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
        },
      },
    ]);
    const error = await e.connection
      .prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] })
      .catch((err) => err);
    expect(error).toMatchObject({ code: -32000 });
    expect(String(error.message)).toContain("invalid x-api-key");
    expect(String(error.message)).toContain("ANTHROPIC_API_KEY");
  });

  it("session/cancel stops the turn: stopReason cancelled, and the session goes on", async () => {
    const e = await connect();
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    const stalled = replyFor("anthropic", "Working on it", []);
    model.script([
      { raw: { ...stalled, ...(stalled.kind === "sse" && { stallAfter: 3 }) } },
      { text: "Back again." },
    ]);
    const turn = e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "do something long" }] });
    await e.waitFor((u) => u.sessionUpdate === "agent_message_chunk");
    await e.connection.cancel({ sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    const next = await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(next.stopReason).toBe("end_turn");
    expect(messageText(e.updates(sessionId))).toContain("Back again.");
  });
});

describe("attractor acp: cancelling while the editor asks", () => {
  it("a cancel during a permission request stops the turn and runs nothing", async () => {
    let cancel: () => Promise<void> = async () => {};
    const e = await connect({
      decide: async () => {
        // The user presses stop while the question is open; the editor then answers "cancelled".
        await cancel();
        return "cancelled";
      },
    });
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    cancel = () => e.connection.cancel({ sessionId });
    await writeFile(join(project.project, "marker.js"), "require('fs').writeFileSync('ran.txt', 'yes')\n");
    model.script([
      { calls: [{ name: "shell", args: { command: "node marker.js" } }] },
      { text: "not reached" },
    ]);
    const answer = await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "run marker" }] });
    expect(answer.stopReason).toBe("cancelled");
    expect(e.permissionRequests).toHaveLength(1);
    await expect(readFile(join(project.project, "ran.txt"), "utf8")).rejects.toThrow();
    const call = toolCalls(e.updates(sessionId))[0];
    expect(toolUpdates(e.updates(sessionId), call?.toolCallId ?? "").at(-1)?.status).toBe("failed");
  });

  it("a cancel sent right after the prompt stops the turn before anything runs", async () => {
    const e = await connect();
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    await e.connection.setSessionMode({ sessionId, modeId: "yolo" });
    await writeFile(join(project.project, "marker.js"), "require('fs').writeFileSync('ran.txt', 'yes')\n");
    model.script([
      { calls: [{ name: "shell", args: { command: "node marker.js" } }] },
      { text: "not reached" },
    ]);
    const turn = e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "run marker" }] });
    await e.connection.cancel({ sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    await expect(readFile(join(project.project, "ran.txt"), "utf8")).rejects.toThrow();
    expect(messageText(e.updates(sessionId))).not.toContain("not reached");
  });
});

describe("attractor acp: files through the editor", () => {
  it("with fs offered, reads see the unsaved buffer and edits are written through the editor", async () => {
    const unsaved = BUGGY_MATH.replace("function add", "// unsaved change\nfunction add");
    const buffers = new Map([[mathPath(), unsaved]]);
    const e = await connect({ buffers, answers: ["allow_once"] });
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { calls: [editCall("anthropic", "src/math.js", BUGGY_LINE, FIXED_LINE)] },
      { text: "Done." },
    ]);
    await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "fix add" }] });
    expect(model.seen()[1]?.toolResults[0]).toContain("// unsaved change");
    expect(e.reads.map((r) => r.path)).toContain(mathPath());
    expect(e.writes).toHaveLength(1);
    expect(e.writes[0]).toMatchObject({
      sessionId,
      path: mathPath(),
      content: unsaved.replace(BUGGY_LINE, FIXED_LINE),
    });
    // The editor owns the file: the agent did not write the disk itself.
    expect(await readFile(mathPath(), "utf8")).toBe(BUGGY_MATH);
    const edit = toolCalls(e.updates(sessionId)).find((c) => c.kind === "edit");
    const done = toolUpdates(e.updates(sessionId), edit?.toolCallId ?? "").at(-1);
    expect(done?.content).toContainEqual({
      type: "diff",
      path: mathPath(),
      oldText: unsaved,
      newText: unsaved.replace(BUGGY_LINE, FIXED_LINE),
    });
    expect(done?.locations).toEqual([{ path: mathPath(), line: 3 }]);
  });

  it("without fs, reads and writes go to the disk and the editor is never asked for files", async () => {
    const e = await connect({ answers: ["allow_once"] });
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { calls: [editCall("anthropic", "src/math.js", BUGGY_LINE, FIXED_LINE)] },
      { text: "Done." },
    ]);
    await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "fix add" }] });
    expect(model.seen()[1]?.toolResults[0]).toContain(BUGGY_LINE);
    // A read needs no permission: it is shown running as soon as it is let through.
    const read = toolCalls(e.updates(sessionId)).find((c) => c.kind === "read");
    expect(read).toMatchObject({ status: "pending", locations: [{ path: mathPath() }] });
    expect(
      toolUpdates(e.updates(sessionId), read?.toolCallId ?? "")
        .map((u) => u.status)
        .filter(Boolean),
    ).toEqual(["in_progress", "completed"]);
    expect(e.reads).toHaveLength(0);
    expect(e.writes).toHaveLength(0);
    expect(await readFile(mathPath(), "utf8")).toBe(FIXED_MATH);
  });
});

const bwrap = await probeBubblewrap();

describe.skipIf(!bwrap.available)("attractor acp: the sandbox", () => {
  it("a command the sandbox blocked runs again outside it once the editor allows it", async () => {
    // Not under /tmp: sandboxed commands get a private /tmp, where the target would not exist.
    const root = await mkdtemp(
      join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "attractor-acp-sandbox-"),
    );
    try {
      const work = join(root, "project");
      const outside = join(root, "outside");
      for (const dir of [work, outside, join(root, "user")]) await mkdir(dir, { recursive: true });
      const target = join(outside, "from-editor.txt");
      editor = await connectEditor({
        cwd: work,
        env: cleanEnv(root, model.env()),
        answers: ["allow_once"],
      });
      const { sessionId } = await editor.connection.newSession({ cwd: work, mcpServers: [] });
      await editor.connection.setSessionMode({ sessionId, modeId: "yolo" });
      model.script([
        { calls: [{ name: "shell", args: { command: `touch ${target} && echo written` } }] },
        { text: "Written." },
      ]);
      await editor.connection.prompt({ sessionId, prompt: [{ type: "text", text: "write it" }] });
      // Yolo asks nothing for the command itself: the one question is the sandbox's.
      expect(editor.permissionRequests).toHaveLength(1);
      const ask = editor.permissionRequests[0];
      expect(ask?.toolCall.title).toContain("Run outside the sandbox");
      expect(ask?.toolCall.toolCallId).toBe(toolCalls(editor.updates(sessionId))[0]?.toolCallId);
      expect(ask?.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
      expect(existsSync(target)).toBe(true);
      expect(model.seen().at(-1)?.toolResults.at(-1)).toContain("outside the sandbox");
      await editor.close();
      editor = undefined;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("attractor acp: OpenAI's apply_patch", () => {
  let openai: ScriptedModel;
  beforeAll(async () => {
    openai = await startScriptedModel("openai");
  });
  afterAll(async () => {
    await openai.close();
  });

  it("a patch shows as an edit with each file's diff, a patch that moves a file as a move", async () => {
    const e = await connect({
      env: cleanEnv(project.root, openai.env()),
      answers: ["allow_once", "allow_once"],
    });
    const { sessionId } = await e.connection.newSession({ cwd: project.project, mcpServers: [] });
    openai.script([
      { calls: [editCall("openai", "src/math.js", BUGGY_LINE, FIXED_LINE)] },
      {
        calls: [
          {
            name: "apply_patch",
            args: {
              patch: `*** Begin Patch\n*** Update File: test.js\n*** Move to: check.js\n@@\n ${TEST_JS.split("\n")[0]}\n*** End Patch`,
            },
          },
        ],
      },
      { text: "Patched." },
    ]);
    await e.connection.prompt({ sessionId, prompt: [{ type: "text", text: "fix add" }] });
    expect(await readFile(mathPath(), "utf8")).toBe(FIXED_MATH);
    const [patch, move] = toolCalls(e.updates(sessionId));
    expect(patch).toMatchObject({ kind: "edit", locations: [{ path: mathPath() }] });
    expect(toolUpdates(e.updates(sessionId), patch?.toolCallId ?? "").at(-1)?.content).toContainEqual({
      type: "diff",
      path: mathPath(),
      oldText: BUGGY_MATH,
      newText: FIXED_MATH,
    });
    expect(move?.kind).toBe("move");
    const moved = toolUpdates(e.updates(sessionId), move?.toolCallId ?? "").at(-1);
    expect(moved?.status).toBe("completed");
    expect(moved?.content).toContainEqual(
      expect.objectContaining({ type: "diff", path: join(project.project, "check.js"), oldText: null }),
    );
  });
});

describe("attractor acp: session/load", () => {
  it("replays a stored session's conversation as updates, then continues it", async () => {
    const first = await connect();
    const { sessionId } = await first.connection.newSession({ cwd: project.project, mcpServers: [] });
    model.script([
      { calls: [{ name: "read_file", args: { file_path: "src/math.js" } }] },
      { text: "add() subtracts." },
    ]);
    await first.connection.prompt({ sessionId, prompt: [{ type: "text", text: "What does add do?" }] });
    await first.close();

    const second = await connect();
    // The editor finds it in the project's stored sessions, titled with its first message.
    const listed = await second.connection.listSessions({ cwd: project.project });
    expect(listed.sessions).toContainEqual(
      expect.objectContaining({ sessionId, cwd: project.project, title: "What does add do?" }),
    );
    const loaded = await second.connection.loadSession({ sessionId, cwd: project.project, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("normal");
    const replay = second.updates(sessionId);
    expect(replay.find((u) => u.sessionUpdate === "user_message_chunk")).toMatchObject({
      content: { type: "text", text: "What does add do?" },
    });
    expect(messageText(replay)).toContain("add() subtracts.");
    const read = toolCalls(replay)[0];
    expect(read).toMatchObject({ kind: "read", locations: [{ path: mathPath() }] });
    expect(toolUpdates(replay, read?.toolCallId ?? "").at(-1)?.status).toBe("completed");

    model.script([{ text: "Still the same session." }]);
    await second.connection.prompt({ sessionId, prompt: [{ type: "text", text: "and now?" }] });
    expect(model.seen().at(-1)?.userTexts).toEqual(["What does add do?", "and now?"]);

    const missing = await second.connection
      .loadSession({ sessionId: "no-such-session", cwd: project.project, mcpServers: [] })
      .catch((err) => err);
    expect(missing).toMatchObject({ code: -32002 });
  });
});
