// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${VAR} references as .mcp.json holds them
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { expandVariables, selectMcpServers, serverConfig } from "@attractor/runtime/mcp";
import { createPermissionPolicy, type PermissionMode } from "@attractor/runtime/permissions";
import { parse as parseJsonc } from "jsonc-parser";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CommandHost, type OutputBlock, runCommand } from "../src/commands/index.js";
import { askProjectServers } from "../src/mcp/approval-prompt.js";
import {
  buggyProject,
  cleanEnv,
  requireBuiltCli,
  runCliProcess,
  type ScriptedModel,
  startScriptedModel,
} from "../src/testing/index.js";
import { runtimeFixture } from "./support/runtime-fixture.js";

const require = createRequire(import.meta.url);
const serverEntry = (pkg: string) =>
  join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
const EVERYTHING = serverEntry("@modelcontextprotocol/server-everything");
const FILESYSTEM = serverEntry("@modelcontextprotocol/server-filesystem");

/** Command lines of the running processes that mention `text` (from /proc). */
async function processesNaming(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(text)) found.push(cmdline.replace(/\0/g, " "));
  }
  return found;
}

/** A project .mcp.json naming both published servers, with ${VAR} and ${VAR:-default} in it. */
const projectMcpJson = (project: string) =>
  JSON.stringify({
    mcpServers: {
      everything: { command: "${ATTRACTOR_TEST_NODE}", args: [EVERYTHING, "stdio"] },
      filesystem: { command: process.execPath, args: [FILESYSTEM, `\${FS_ROOT:-${project}}`] },
    },
  });

describe("configuration", () => {
  it("expands ${VAR} and ${VAR:-default}, and names the variables that are missing", () => {
    const env = { HOME: "/home/u", EMPTY: "" };
    const missing = new Set<string>();
    expect(
      expandVariables(
        { a: "${HOME}/x", b: ["${NOPE:-fallback}", "${EMPTY:-used}"], c: "${GONE}", d: 1 },
        env,
        missing,
      ),
    ).toEqual({ a: "/home/u/x", b: ["fallback", "used"], c: "", d: 1 });
    expect([...missing]).toEqual(["GONE"]);
    expect(serverConfig({ command: "${GONE}" }, env)).toEqual({
      ok: false,
      problem: '"command" must be a non-empty string',
    });
    expect(serverConfig({ command: "run", args: ["${GONE}"] }, env)).toEqual({
      ok: false,
      problem: "missing environment variable: GONE",
    });
    expect(
      serverConfig({ type: "http", url: "${BASE:-http://127.0.0.1:1}/mcp", headers: { A: "b" } }, env),
    ).toEqual({
      ok: true,
      config: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { A: "b" } },
    });
    expect(serverConfig({ type: "ws", url: "x" }, env)).toMatchObject({
      ok: false,
      problem: /unknown "type"/,
    });
  });

  it("uses project servers only once approved, by settings or by the user; a changed entry asks again", async () => {
    const { root, project, remove } = await buggyProject();
    try {
      const home = join(root, "attractor");
      await writeFile(join(project, ".mcp.json"), projectMcpJson(project));
      const env = { ATTRACTOR_TEST_NODE: process.execPath };
      const select = (userSettings = {}) =>
        selectMcpServers({ home, projectDir: project, cwd: project, env, userSettings });
      const first = await select();
      expect(Object.keys(first.servers)).toEqual([]);
      expect(first.pending.map((p) => p.name)).toEqual(["everything", "filesystem"]);
      expect(Object.keys((await select({ enableAllProjectMcpServers: true })).servers)).toEqual([
        "everything",
        "filesystem",
      ]);
      const some = await select({
        enabledMcpjsonServers: ["everything"],
        disabledMcpjsonServers: ["filesystem"],
      });
      expect(Object.keys(some.servers)).toEqual(["everything"]);
      expect(some.skipped).toEqual([
        {
          name: "filesystem",
          origin: "project",
          reason: "disabled by disabledMcpjsonServers in the user settings",
        },
      ]);

      // The user answers at start-up: yes to one, no to the other; both answers are kept.
      const input = new PassThrough();
      input.end("y\nn\n");
      const answers = await askProjectServers(first.pending, { input, output: new PassThrough() });
      expect([...answers]).toEqual([
        ["everything", "approved"],
        ["filesystem", "denied"],
      ]);
      const { settlePending } = await import("@attractor/runtime/mcp");
      await settlePending(first, answers, { home, projectDir: project });
      const later = await select();
      expect(Object.keys(later.servers)).toEqual(["everything"]);
      expect(later.skipped[0]?.reason).toMatch(/^declined earlier/);

      // The project changes the approved entry: it waits for approval again.
      const changed = JSON.parse(projectMcpJson(project));
      changed.mcpServers.everything.args.push("--extra");
      await writeFile(join(project, ".mcp.json"), JSON.stringify(changed));
      expect((await select()).pending.map((p) => p.name)).toEqual(["everything"]);

      // --strict-mcp-config: only the given files count.
      const strict = await selectMcpServers({
        home,
        projectDir: project,
        cwd: project,
        env,
        userSettings: { enableAllProjectMcpServers: true, mcpServers: { mine: { command: "x" } } },
        strict: true,
        configFiles: ['{"mcpServers": {"inline": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}'],
      });
      expect(Object.keys(strict.servers)).toEqual(["inline"]);
    } finally {
      await remove();
    }
  });
});

describe("permission rules on MCP tools", () => {
  const call = (toolName: string) => ({ callId: "c", toolName, arguments: {} });
  // evaluate() is asynchronous: a shell line is judged by a parser loaded on first use.
  const decide = async (
    mode: PermissionMode,
    rules: { allow?: string[]; ask?: string[]; deny?: string[] },
    tool: string,
  ) =>
    (
      await createPermissionPolicy({
        mode,
        projectRoot: "/tmp",
        rules: { allow: rules.allow ?? [], ask: rules.ask ?? [], deny: rules.deny ?? [] },
        toolTraits: () => ({ readOnly: false }),
      }).evaluate(call(tool))
    ).behavior;

  it("asks in normal and auto-edit modes unless a rule allows; mcp__server covers all its tools", async () => {
    expect(await decide("normal", {}, "mcp__everything__echo")).toBe("ask");
    expect(await decide("auto-edit", {}, "mcp__everything__echo")).toBe("ask");
    expect(await decide("yolo", {}, "mcp__everything__echo")).toBe("allow");
    expect(await decide("plan", {}, "mcp__everything__echo")).toBe("deny");
    expect(await decide("normal", { allow: ["mcp__everything"] }, "mcp__everything__echo")).toBe("allow");
    expect(await decide("normal", { allow: ["mcp__everything"] }, "mcp__everything2__echo")).toBe("ask");
    expect(await decide("normal", { allow: ["mcp__everything__*"] }, "mcp__everything__get-sum")).toBe(
      "allow",
    );
    expect(await decide("normal", { allow: ["mcp__everything__echo"] }, "mcp__everything__echo")).toBe(
      "allow",
    );
    expect(await decide("normal", { allow: ["mcp__everything__echo"] }, "mcp__everything__get-sum")).toBe(
      "ask",
    );
    expect(await decide("yolo", { deny: ["mcp__everything"] }, "mcp__everything__echo")).toBe("deny");
    expect(
      await decide(
        "normal",
        { allow: ["mcp__everything"], ask: ["mcp__everything__get-env"] },
        "mcp__everything__get-env",
      ),
    ).toBe("ask");
    expect(
      await decide(
        "normal",
        { allow: ["mcp__everything"], deny: ["mcp__everything__get-env"] },
        "mcp__everything__get-env",
      ),
    ).toBe("deny");
  });
});

describe("the attractor command with MCP servers", () => {
  let root: string;
  let project: string;
  let remove: () => Promise<void>;
  let model: ScriptedModel | undefined;
  beforeAll(() => requireBuiltCli());
  beforeEach(async () => {
    ({ root, project, remove } = await buggyProject());
    await mkdir(join(root, "attractor"), { recursive: true });
    await writeFile(join(project, ".mcp.json"), projectMcpJson(project));
  });
  afterEach(async () => {
    await model?.close();
    model = undefined;
    await remove();
  });
  const userSettings = (settings: object) =>
    writeFile(join(root, "attractor", "settings.json"), JSON.stringify(settings));
  const run = (args: string[]) =>
    runCliProcess(args, {
      cwd: project,
      env: cleanEnv(root, { ...model?.env(), ATTRACTOR_TEST_NODE: process.execPath }),
    });

  it("headless: the scripted model calls MCP tools by their mcp__ names from the project's .mcp.json", async () => {
    await userSettings({
      enabledMcpjsonServers: ["everything", "filesystem"],
      permissions: { allow: ["mcp__everything", "mcp__filesystem__read_text_file"] },
    });
    model = await startScriptedModel("anthropic", [
      { calls: [{ name: "mcp__everything__echo", args: { message: "hello over stdio" } }] },
      {
        expect: (r) => (r.at(-1) === "Echo: hello over stdio" ? undefined : `echo gave ${r.at(-1)}`),
        calls: [{ name: "mcp__filesystem__read_text_file", args: { path: join(project, "src", "math.js") } }],
      },
      {
        expect: (r) => (r.at(-1)?.includes("return a - b") ? undefined : `read gave ${r.at(-1)}`),
        text: "Both MCP servers answered.",
      },
    ]);
    const result = await run(["-p", "use the MCP servers"]);
    expect(result.stderr).not.toContain("warning");
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("Both MCP servers answered.");
    const tools = model.seen()[0]?.tools ?? [];
    expect(tools).toContain("mcp__everything__echo");
    expect(tools).toContain("mcp__filesystem__read_text_file");
    // The filesystem server was started with the project's path: no process with it is left.
    expect(await processesNaming(project)).toEqual([]);
  }, 60_000);

  it("headless stream-json: the init line lists the MCP servers, connected, and their tools", async () => {
    await userSettings({ enabledMcpjsonServers: ["everything"], disabledMcpjsonServers: ["filesystem"] });
    model = await startScriptedModel("anthropic", [{ text: "hi" }]);
    const result = await run(["-p", "--output-format", "stream-json", "hello"]);
    expect(result.code).toBe(0);
    const init = JSON.parse(result.stdout.split("\n")[0] ?? "");
    expect(init).toMatchObject({
      type: "system",
      subtype: "init",
      mcp_servers: [{ name: "everything", status: "connected" }],
    });
    expect(init.tools).toContain("mcp__everything__echo");
  }, 60_000);

  it("headless: an MCP call without an allow rule is refused; unapproved project servers are left out with a warning", async () => {
    await userSettings({ enabledMcpjsonServers: ["everything"] });
    model = await startScriptedModel("anthropic", [
      { calls: [{ name: "mcp__everything__echo", args: { message: "hi" } }] },
      { text: "done" },
    ]);
    const result = await run(["-p", "echo"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('MCP server "filesystem" (project) is not used: not approved yet');
    const seen = model.seen();
    expect(seen[0]?.tools).toContain("mcp__everything__echo");
    expect(seen[0]?.tools.some((t) => t.startsWith("mcp__filesystem__"))).toBe(false);
    expect(seen[1]?.toolResults.at(-1)).toMatch(/^Permission denied/);
  }, 60_000);

  it("--mcp-config adds servers for the run; --strict-mcp-config leaves out the others", async () => {
    await userSettings({ enableAllProjectMcpServers: true, permissions: { allow: ["mcp__flagged"] } });
    const file = join(root, "servers.json");
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { flagged: { command: process.execPath, args: [EVERYTHING] } } }),
    );
    model = await startScriptedModel("anthropic", [
      { calls: [{ name: "mcp__flagged__get-sum", args: { a: 2, b: 3 } }] },
      { expect: (r) => (/5/.test(r.at(-1) ?? "") ? undefined : `sum gave ${r.at(-1)}`), text: "five" },
    ]);
    const result = await run(["-p", "--strict-mcp-config", "--mcp-config", file, "add"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("five");
    const tools = model.seen()[0]?.tools ?? [];
    expect(tools).toContain("mcp__flagged__get-sum");
    expect(tools.some((t) => t.startsWith("mcp__everything__"))).toBe(false);

    const bad = await run(["-p", "--mcp-config", join(root, "missing.json"), "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("invalid MCP configuration");
  }, 60_000);

  it("attractor mcp add, list, get, approve and remove", async () => {
    // The user settings are JSONC: the edit keeps what the user wrote around it.
    await writeFile(join(root, "attractor", "settings.json"), '{\n  // my mode\n  "mode": "normal",\n}\n');
    const add = await run(["mcp", "add", "echoer", process.execPath, EVERYTHING, "stdio"]);
    expect(add.code).toBe(0);
    const text = await readFile(join(root, "attractor", "settings.json"), "utf8");
    expect(text).toContain("// my mode");
    const settings = parseJsonc(text);
    expect(settings.mode).toBe("normal");
    expect(settings.mcpServers.echoer).toEqual({ command: process.execPath, args: [EVERYTHING, "stdio"] });

    const list = await run(["mcp", "list", "--no-check"]);
    expect(list.stdout).toContain("echoer  (user)");
    expect(list.stdout).toContain("everything  (project, not approved)");

    const approve = await run(["mcp", "approve", "everything"]);
    expect(approve.code).toBe(0);
    const get = await run(["mcp", "get", "everything"]);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain("approval: approved (user)");
    expect(get.stdout).toContain("status: connected");
    expect(get.stdout).toContain("mcp__everything__echo");

    const checked = await run(["mcp", "list"]);
    expect(checked.stdout).toMatch(/echoer {2}\(user, connected, \d+ tools\)/);
    expect(checked.stdout).toContain("filesystem  (project, not approved)");

    expect((await run(["mcp", "remove", "echoer"])).code).toBe(0);
    expect(parseJsonc(await readFile(join(root, "attractor", "settings.json"), "utf8")).mcpServers).toEqual(
      {},
    );
    const missing = await run(["mcp", "remove", "echoer"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No MCP server named "echoer"');

    const http = await run([
      "mcp",
      "add",
      "-s",
      "project",
      "-t",
      "http",
      "remote",
      "http://127.0.0.1:9/mcp",
      "-H",
      "Authorization: Bearer x",
    ]);
    expect(http.code).toBe(0);
    const projectFile = JSON.parse(await readFile(join(project, ".mcp.json"), "utf8"));
    expect(projectFile.mcpServers.remote).toEqual({
      type: "http",
      url: "http://127.0.0.1:9/mcp",
      headers: { Authorization: "Bearer x" },
    });
  }, 90_000);
});

describe("/mcp and MCP prompts in a runtime", () => {
  const fixture = runtimeFixture();

  it("/mcp shows each server's state and tools; /mcp__server__prompt sends the rendered prompt", async () => {
    const { runtime } = await fixture.start({
      mcp: {
        servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
        skipped: [{ name: "other", origin: "project", reason: "not approved yet" }],
        startupWaitMs: 30_000,
      },
    });
    fixture.model.script([{ text: "It is sunny." }]);
    // The first request waits for the servers: they are connected afterwards.
    await runtime.submit("hello");
    const blocks: OutputBlock[] = [];
    const sent: string[] = [];
    const host: CommandHost = {
      show: (b) => blocks.push(b),
      choose: async () => undefined,
      confirm: async () => false,
      resetScreen: () => {},
      exit: () => {},
      send: (text) => sent.push(text),
    };
    await runCommand("mcp", "", { runtime, host, busy: false });
    const list = blocks.find((b) => b.kind === "list" && b.title.startsWith("everything"));
    expect(list?.kind === "list" && list.title).toMatch(/^everything {2}\(stdio · connected · /);
    expect(list?.kind === "list" && list.rows.map((r) => r.label)).toEqual(
      expect.arrayContaining(["echo", "get-sum", "(resources)"]),
    );
    const note = blocks.find((b) => b.kind === "text" && b.text.startsWith("The model calls these"));
    expect(note?.kind === "text" && note.text).toContain(
      "mcp__everything__<tool>; the permission rule mcp__everything",
    );
    expect(note?.kind === "text" && note.text).toContain("/mcp__everything__args-prompt <city> [state]");
    expect(blocks.at(-1)).toEqual({
      kind: "list",
      title: "Configured but not used",
      rows: [{ label: "other (project)", detail: "not approved yet" }],
    });

    await runCommand("mcp__everything__args-prompt", 'Paris "Ile de France"', { runtime, host, busy: false });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain("Paris");
    expect(sent[0]).toContain("Ile de France");

    blocks.length = 0;
    await runCommand("mcp", "reconnect everything", { runtime, host, busy: false });
    expect(blocks.at(-1)).toEqual({
      kind: "text",
      tone: "success",
      text: 'MCP server "everything" is connected.',
    });
    expect(runtime.mcp?.servers()[0]?.status).toBe("connected");

    blocks.length = 0;
    await runCommand("mcp__everything__args-prompt", "", { runtime, host, busy: false });
    expect(blocks).toEqual([
      {
        kind: "text",
        tone: "error",
        text: "/mcp__everything__args-prompt failed: needs <city>: /mcp__everything__args-prompt <city> [state]",
      },
    ]);
  }, 60_000);
});
