import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import * as path from "node:path";
import type { Request } from "@attractor/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager } from "../src/mcp/manager.js";
import { MAX_TOOL_NAME_LENGTH, mcpToolName } from "../src/mcp/names.js";
import type { McpEvent, McpServerConfig } from "../src/mcp/types.js";
import { Session } from "../src/session/session.js";
import { subagentTools } from "../src/subagent/tools.js";
import { nodeEnvironment, type Script, scriptedClient } from "../src/testing/index.js";
import type { SessionEvent } from "../src/types/events.js";
import type { ToolResultRecord } from "../src/types/turn.js";
import { collect, tempDir, testProfile } from "./support/fixtures.js";
import { alive, EVERYTHING, FILESYSTEM, SCRIPTED, startEverythingHttp } from "./support/mcp/servers.js";

let dir: string;
let removeDir: () => Promise<void>;
let http: Awaited<ReturnType<typeof startEverythingHttp>>;
let sse: Awaited<ReturnType<typeof startEverythingHttp>>;
let shared: McpManager;
const events: McpEvent[] = [];

const stdio = (file: string, ...args: string[]): McpServerConfig => ({
  command: process.execPath,
  args: [file, ...args],
});

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
  await mkdir(path.join(dir, "files"));
  await writeFile(path.join(dir, "files", "notes.txt"), "the filesystem server read this\n");
  [http, sse] = await Promise.all([startEverythingHttp("streamableHttp"), startEverythingHttp("sse")]);
  shared = new McpManager(
    {
      everything: stdio(EVERYTHING, "stdio"),
      "everything-http": { type: "http", url: http.url },
      "everything-sse": { type: "sse", url: sse.url },
      filesystem: stdio(FILESYSTEM, path.join(dir, "files")),
    },
    { startupWaitMs: 60_000 },
  );
  shared.subscribe((e) => events.push(e));
  await shared.waitForStartup();
}, 90_000);

afterAll(async () => {
  await shared?.close();
  await Promise.all([http?.stop(), sse?.stop()]);
  await removeDir();
});

/** A session whose registry the manager fills, driven by a scripted model. */
function mcpSession(manager: McpManager, script: Script | Parameters<typeof scriptedClient>[0]) {
  const client = scriptedClient(script);
  const profile = testProfile([]);
  const session = new Session({
    profile,
    environment: nodeEnvironment(dir),
    client,
    toolsReady: manager.waitForStartup,
  });
  const detach = manager.attach(profile.toolRegistry);
  const all = collect(session.events());
  return { session, client, all, profile, detach };
}

const results = (session: Session): ToolResultRecord[] =>
  session.history.flatMap((t) => (t.kind === "tool_results" ? [...t.results] : []));
const ends = (all: readonly SessionEvent[]) =>
  all.flatMap((e) => (e.kind === "tool_call_end" ? [e.data] : []));
const offered = (r: Request | undefined) => (r?.tools ?? []).map((t) => t.name);

describe("MCP tools through a Session", () => {
  for (const server of ["everything", "everything-http", "everything-sse"]) {
    it(`lists and calls ${server}'s tools under mcp__ names`, async () => {
      const { session, client, all } = mcpSession(shared, [
        { toolCalls: [{ id: "c1", name: `mcp__${server}__echo`, args: { message: "round trip" } }] },
        { text: "done" },
      ]);
      await session.submit("echo");
      await session.close();
      expect(offered(client.requests[0])).toContain(`mcp__${server}__get-sum`);
      expect(offered(client.requests[0])).toContain(`mcp__${server}__trigger-long-running-operation`);
      const [result] = results(session);
      expect(result).toMatchObject({
        toolName: `mcp__${server}__echo`,
        isError: false,
        content: "Echo: round trip",
      });
      expect(ends(await all)[0]?.output).toBe("Echo: round trip");
    });
  }

  it("passes an image result on as an image part", async () => {
    const { session } = mcpSession(shared, [
      { toolCalls: [{ id: "c1", name: "mcp__everything__get-tiny-image", args: {} }] },
      { text: "done" },
    ]);
    await session.submit("image");
    await session.close();
    const [result] = results(session);
    expect(result?.isError).toBe(false);
    expect(result?.image?.mediaType).toBe("image/png");
    const bytes = Buffer.from(result?.image?.data as string, "base64");
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(result?.content).toContain("The image above is the MCP logo.");
  });

  it("validates arguments against the server's schema before calling it", async () => {
    const { session } = mcpSession(shared, [
      { toolCalls: [{ id: "c1", name: "mcp__everything__get-sum", args: { a: "one", b: 2 } }] },
      { text: "done" },
    ]);
    await session.submit("sum");
    await session.close();
    const [result] = results(session);
    expect(result?.isError).toBe(true);
    expect(result?.content).toMatch(/Invalid arguments for tool: mcp__everything__get-sum: a must be number/);
  });

  it("returns structuredContent and keeps it in the details", async () => {
    const { session, all } = mcpSession(shared, [
      {
        toolCalls: [
          { id: "c1", name: "mcp__everything__get-structured-content", args: { location: "New York" } },
        ],
      },
      { text: "done" },
    ]);
    await session.submit("weather");
    await session.close();
    const end = ends(await all)[0];
    expect(end?.isError).toBe(false);
    expect(end?.details?.structuredContent).toMatchObject({ temperature: expect.any(Number) });
    expect(JSON.parse(end?.output ?? "")).toEqual(end?.details?.structuredContent);
  });

  it("inlines embedded resources and maps a tool's failure (isError) to an error result", async () => {
    const { session } = mcpSession(shared, [
      {
        toolCalls: [
          {
            id: "c1",
            name: "mcp__everything__get-resource-reference",
            args: { resourceType: "Text", resourceId: 2 },
          },
          {
            id: "c2",
            name: "mcp__everything__get-resource-reference",
            args: { resourceType: "Text", resourceId: 0 },
          },
        ],
      },
      { text: "done" },
    ]);
    await session.submit("resource");
    await session.close();
    const [embedded, failed] = results(session);
    expect(embedded?.isError).toBe(false);
    expect(embedded?.content).toMatch(
      /^Returning resource reference for Resource 2:\n\[resource: \S+\/2\]\n.+\nYou can access/s,
    );
    expect(failed?.isError).toBe(true);
    expect(failed?.content).toContain("Invalid resourceId: 0");
  });

  it("reads resources with list_mcp_resources and read_mcp_resource", async () => {
    const { session } = mcpSession(shared, [
      { toolCalls: [{ id: "c1", name: "list_mcp_resources", args: { server: "everything" } }] },
      {
        toolCalls: [
          {
            id: "c2",
            name: "read_mcp_resource",
            args: { server: "everything", uri: "demo://resource/static/document/architecture.md" },
          },
        ],
      },
      { text: "done" },
    ]);
    await session.submit("resources");
    await session.close();
    const [list, read] = results(session);
    expect(list?.content).toContain("demo://resource/static/document/architecture.md");
    expect(read?.isError).toBe(false);
    expect(read?.content).toMatch(/^\[resource: demo:\/\/resource\/static\/document\/architecture\.md\]\n#/);
  });

  it("reads a file through the filesystem server and refuses one outside its directory", async () => {
    const file = path.join(dir, "files", "notes.txt");
    const { session } = mcpSession(shared, [
      {
        toolCalls: [
          { id: "c1", name: "mcp__filesystem__read_text_file", args: { path: file } },
          { id: "c2", name: "mcp__filesystem__read_text_file", args: { path: "/etc/hostname" } },
        ],
      },
      { text: "done" },
    ]);
    await session.submit("read");
    await session.close();
    const [inside, outside] = results(session);
    expect(inside).toMatchObject({ isError: false, content: "the filesystem server read this\n" });
    expect(outside?.isError).toBe(true);
    expect(outside?.content).toMatch(/outside allowed directories/i);
  });

  it("streams progress notifications as output deltas; the model gets the truncated output, events the whole", async () => {
    const { session, all } = mcpSession(shared, [
      {
        toolCalls: [
          {
            id: "c1",
            name: "mcp__everything__trigger-long-running-operation",
            args: { duration: 1.5, steps: 3 },
          },
        ],
      },
      { toolCalls: [{ id: "c2", name: "mcp__everything__echo", args: { message: "x".repeat(5000) } }] },
      { text: "done" },
    ]);
    session.updateConfig({ toolOutputLimits: { mcp__everything__echo: 1000 } });
    await session.submit("long");
    await session.close();
    const deltas = (await all).flatMap((e) => (e.kind === "tool_call_output_delta" ? [e.data.delta] : []));
    // The last notification may cross the result on the wire; the SDK drops it after the result.
    expect(deltas.slice(0, 2)).toEqual(["[progress 1/3]\n", "[progress 2/3]\n"]);
    const echo = results(session)[1];
    expect(echo?.content.length).toBeLessThan(2000);
    expect(ends(await all)[1]?.output).toBe(`Echo: ${"x".repeat(5000)}`);
    expect(ends(await all)[1]?.truncated).toBe(true);
  });

  it("offers the servers' tools to subagents, which share the session's registry", async () => {
    const firstUser = (r: Request) => {
      const m = r.messages.find((x) => x.role === "user");
      return m?.content[0]?.kind === "text" ? m.content[0].text : "";
    };
    const outputs = (r: Request) =>
      r.messages.flatMap((m) =>
        m.role === "tool" && m.content[0]?.kind === "tool_result"
          ? [String(m.content[0].toolResult.content)]
          : [],
      );
    const client = scriptedClient((r) => {
      if (firstUser(r) === "child task")
        return outputs(r).length === 0
          ? { toolCalls: [{ name: "mcp__everything__echo", args: { message: "from the child" } }] }
          : { text: `child got: ${outputs(r)[0]}` };
      const outs = outputs(r);
      if (outs.length === 0) return { toolCalls: [{ name: "spawn_agent", args: { task: "child task" } }] };
      if (outs.length === 1) {
        const { agent_id } = JSON.parse(outs[0] as string) as { agent_id: string };
        return { toolCalls: [{ name: "wait", args: { agent_id } }] };
      }
      return { text: "parent done" };
    });
    const profile = testProfile(subagentTools());
    const session = new Session({
      profile,
      environment: nodeEnvironment(dir),
      client,
      toolsReady: shared.waitForStartup,
    });
    const detach = shared.attach(profile.toolRegistry);
    await session.submit("delegate");
    await session.close();
    detach();
    const waited = JSON.parse(outputs(client.requests.at(-1) as Request)[1] as string);
    expect(waited).toMatchObject({ output: "child got: Echo: from the child", success: true });
    const childRequest = client.requests.find((r) => firstUser(r) === "child task");
    expect(offered(childRequest)).toContain("mcp__everything__echo");
  });
});

describe("MCP server failures", () => {
  it("reports a crash mid-call as an error result, restarts the server on next use, and leaves other servers working", async () => {
    const manager = new McpManager(
      { scripted: stdio(SCRIPTED, "normal"), everything: stdio(EVERYTHING, "stdio") },
      { startupWaitMs: 60_000 },
    );
    const seen: McpEvent[] = [];
    manager.subscribe((e) => seen.push(e));
    const { session } = mcpSession(manager, [
      { toolCalls: [{ id: "c1", name: "mcp__scripted__pid", args: {} }] },
      { toolCalls: [{ id: "c2", name: "mcp__scripted__crash", args: {} }] },
      { toolCalls: [{ id: "c3", name: "mcp__everything__echo", args: { message: "still here" } }] },
      { toolCalls: [{ id: "c4", name: "mcp__scripted__pid", args: {} }] },
      { text: "done" },
    ]);
    await session.submit("crash");
    await session.close();
    await manager.close();
    const [first, crash, echo, second] = results(session);
    expect(crash?.isError).toBe(true);
    expect(crash?.content).toMatch(
      /MCP server "scripted" closed the connection during crash \(it crashed or exited\)/,
    );
    expect(crash?.content).toContain("crashing on purpose");
    expect(echo).toMatchObject({ isError: false, content: "Echo: still here" });
    expect(second?.isError).toBe(false);
    expect(Number(second?.content)).toBeGreaterThan(0);
    expect(second?.content).not.toBe(first?.content);
    const statuses = seen.flatMap((e) =>
      e.kind === "server_status" && e.server === "scripted" ? [e.status] : [],
    );
    expect(statuses).toEqual(["connecting", "connected", "failed", "connecting", "connected", "closed"]);
    expect(alive(Number(second?.content))).toBe(false);
  }, 60_000);

  it("connects again to a remote server that went away and came back", async () => {
    const first = await startEverythingHttp("streamableHttp");
    const manager = new McpManager({ remote: { type: "http", url: first.url } }, { startupWaitMs: 60_000 });
    const seen: McpEvent[] = [];
    manager.subscribe((e) => seen.push(e));
    const echo = (id: string, message: string) => ({
      toolCalls: [{ id, name: "mcp__remote__echo", args: { message } }],
    });
    const { session } = mcpSession(manager, [
      echo("c1", "there"),
      { text: "ok" },
      echo("c2", "gone"),
      { text: "ok" },
      echo("c3", "back"),
      { text: "ok" },
    ]);
    await session.submit("first");
    await first.stop();
    await session.submit("second");
    const again = await startEverythingHttp("streamableHttp", first.port);
    try {
      await session.submit("third");
    } finally {
      await session.close();
      await manager.close();
      await again.stop();
    }
    const [there, gone, back] = results(session);
    expect(there).toMatchObject({ isError: false, content: "Echo: there" });
    expect(gone?.isError).toBe(true);
    expect(gone?.content).toMatch(/^MCP server "remote" failed echo: /);
    expect(seen).toContainEqual({
      kind: "server_status",
      server: "remote",
      status: "failed",
      error: 'MCP server "remote" cannot be reached; it is connected again on next use.',
    });
    expect(back).toMatchObject({ isError: false, content: "Echo: back" });
  }, 60_000);

  it("gives up on a server that never answers initialize, reports it, and works with the others", async () => {
    const manager = new McpManager(
      { silent: stdio(SCRIPTED, "silent"), scripted: stdio(SCRIPTED, "normal") },
      // Long enough for the working server to start on a busy machine.
      { connectTimeoutMs: 5_000, startupWaitMs: 60_000 },
    );
    const seen: McpEvent[] = [];
    manager.subscribe((e) => seen.push(e));
    const { session, client } = mcpSession(manager, [
      { toolCalls: [{ id: "c1", name: "mcp__scripted__pid", args: {} }] },
      { text: "done" },
    ]);
    await session.submit("go");
    await session.close();
    const silent = manager.servers().find((s) => s.name === "silent");
    expect(silent?.status).toBe("failed");
    expect(silent?.error).toMatch(
      /MCP server "silent" failed to start: did not answer initialize within 5 s/,
    );
    expect(seen).toContainEqual(
      expect.objectContaining({ kind: "server_status", server: "silent", status: "failed" }),
    );
    expect(offered(client.requests[0])).toContain("mcp__scripted__pid");
    expect(offered(client.requests[0]).some((n) => n.startsWith("mcp__silent__"))).toBe(false);
    expect(results(session)[0]?.isError).toBe(false);
    await manager.close();
  }, 60_000);

  it("reports a server whose command does not exist", async () => {
    const manager = new McpManager({ missing: { command: path.join(dir, "no-such-server") } });
    await manager.waitForStartup();
    const [server] = manager.servers();
    expect(server?.status).toBe("failed");
    expect(server?.error).toMatch(/MCP server "missing" failed to start: .*ENOENT/);
    await manager.close();
  });

  it("cancels a running call on interrupt: the server receives notifications/cancelled", async () => {
    const marker = path.join(dir, "cancelled.txt");
    const manager = new McpManager(
      { scripted: { command: process.execPath, args: [SCRIPTED, "normal"], env: { MARKER_FILE: marker } } },
      { startupWaitMs: 60_000 },
    );
    const { session, all } = mcpSession(manager, [
      { toolCalls: [{ id: "c1", name: "mcp__scripted__wait-for-cancel", args: {} }] },
      { text: "done" },
    ]);
    const running = session.submit("wait");
    // Interrupted once the server is running the call.
    for (let i = 0; i < 500 && !existsSync(`${marker}.started`); i++)
      await new Promise((r) => setTimeout(r, 20));
    await session.interrupt();
    await running;
    const [result] = results(session);
    expect(result?.isError).toBe(true);
    expect(result?.content).toMatch(/cancelled; MCP server "scripted" was told to stop it/);
    for (let i = 0; i < 500 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 20));
    expect(readFileSync(marker, "utf8")).toMatch(/^cancelled/);
    // The interrupted session is still usable and closes normally.
    expect(session.state).toBe("idle");
    await session.close();
    expect((await all).at(-1)?.kind).toBe("session_end");
    await manager.close();
  }, 30_000);

  it("cancels a call that outlives the per-call timeout", async () => {
    const manager = new McpManager({ scripted: stdio(SCRIPTED, "normal") }, { toolTimeoutMs: 500 });
    const { session } = mcpSession(manager, [
      { toolCalls: [{ id: "c1", name: "mcp__scripted__wait-for-cancel", args: {} }] },
      { text: "done" },
    ]);
    await session.submit("wait");
    await session.close();
    await manager.close();
    expect(results(session)[0]?.content).toBe(
      'wait-for-cancel on MCP server "scripted" did not finish within 500 ms and was cancelled.',
    );
  }, 30_000);
});

describe("MCP tool lists", () => {
  it("reads every page of tools/list, sanitises names, and follows tools/list_changed", async () => {
    const manager = new McpManager({ scripted: stdio(SCRIPTED, "normal") });
    const { session, client, profile } = mcpSession(manager, [
      { toolCalls: [{ id: "c1", name: "mcp__scripted__add-tool", args: { name: "late" } }] },
      { text: "done" },
    ]);
    await session.submit("add");
    await session.close();
    expect(offered(client.requests[0])).toEqual([
      "mcp__scripted__pid",
      "mcp__scripted__crash",
      "mcp__scripted__wait-for-cancel",
      "mcp__scripted__add-tool",
      "mcp__scripted__a_tool_with_odd_chars",
    ]);
    for (let i = 0; i < 100 && !profile.toolRegistry.get("mcp__scripted__late"); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(profile.toolRegistry.names()).toContain("mcp__scripted__late");
    await manager.close();
    expect(profile.toolRegistry.names()).toEqual([]);
  }, 30_000);

  it("caps long names at the providers' limit and keeps them distinct", () => {
    const a = mcpToolName("a-very-long-server-name-indeed", "a-very-long-tool-name-that-goes-on-and-on-1");
    const b = mcpToolName("a-very-long-server-name-indeed", "a-very-long-tool-name-that-goes-on-and-on-2");
    expect(a.length).toBe(MAX_TOOL_NAME_LENGTH);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^mcp__a-very-long-server-name-indeed__[A-Za-z0-9_-]+$/);
    expect(mcpToolName("my server", "do.it")).toBe("mcp__my_server__do_it");
  });

  it("ends its servers with the session it is attached to (no orphan processes)", async () => {
    const manager = new McpManager({ scripted: stdio(SCRIPTED, "normal") });
    const client = scriptedClient([
      { toolCalls: [{ id: "c1", name: "mcp__scripted__pid", args: {} }] },
      { text: "done" },
    ]);
    const session = new Session({
      profile: testProfile([]),
      environment: nodeEnvironment(dir),
      client,
      toolsReady: manager.waitForStartup,
    });
    manager.attachSession(session);
    await session.submit("pid");
    const pid = Number(results(session)[0]?.content);
    expect(alive(pid)).toBe(true);
    await session.close();
    for (let i = 0; i < 500 && manager.servers()[0]?.status !== "closed"; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(manager.servers()[0]?.status).toBe("closed");
    expect(alive(pid)).toBe(false);
  }, 30_000);
});
