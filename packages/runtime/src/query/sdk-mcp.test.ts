import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { scriptedClient } from "@attractor/agent/testing";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { QueryOptionError } from "./errors.js";
import { query } from "./query.js";
import { createSdkMcpServer, tool } from "./sdk-mcp.js";
import type { QueryOptions, SDKMessage } from "./types.js";

let root = "";
let project = "";
let env: Record<string, string> = {};
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "attractor-query-mcp-"));
  project = join(root, "project");
  await promisify(execFile)("mkdir", ["-p", project, join(root, "user")]);
  env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "user"),
    ATTRACTOR_HOME: join(root, "attractor"),
  };
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function run(client: ReturnType<typeof scriptedClient>, options: QueryOptions): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const m of query({
    prompt: "use the tool",
    options: { cwd: project, env, client, model: "claude-sonnet-5-5", ...options },
  }))
    messages.push(m);
  return messages;
}

const results = (client: ReturnType<typeof scriptedClient>, at: number): string =>
  JSON.stringify(
    client.requests[at]?.messages.flatMap((m) => m.content.filter((p) => p.kind === "tool_result")),
  );

describe("query(): mcpServers", () => {
  it("createSdkMcpServer + tool(): JSON Schema and zod tools run in process, arguments validated, under mcp__name__tool", async () => {
    const seen: unknown[] = [];
    const server = createSdkMcpServer({
      name: "calc",
      tools: [
        tool(
          "add",
          "Adds two numbers",
          {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
          },
          async (args: { a: number; b: number }) => {
            seen.push(args);
            return { content: [{ type: "text", text: `sum=${args.a + args.b}` }] };
          },
        ),
        tool("shout", "Upper-cases text", { text: z.string().min(1) }, async (args) => ({
          content: [{ type: "text", text: args.text.toUpperCase() }],
        })),
      ],
    });
    const client = scriptedClient([
      {
        toolCalls: [
          { name: "mcp__calc__add", args: { a: 2, b: 40 } },
          { name: "mcp__calc__add", args: { a: "two" } },
          { name: "mcp__calc__shout", args: { text: "quiet" } },
        ],
      },
      { text: "done" },
    ]);
    await run(client, { mcpServers: { calc: server }, allowedTools: ["mcp__calc__add", "mcp__calc__shout"] });
    const offered = (client.requests[0]?.tools ?? []).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(["mcp__calc__add", "mcp__calc__shout"]));
    const shout = client.requests[0]?.tools?.find((t) => t.name === "mcp__calc__shout");
    expect(JSON.stringify(shout?.parameters)).toContain('"text"');
    const out = results(client, 1);
    expect(out).toContain("sum=42");
    expect(out).toContain("QUIET");
    expect(seen).toEqual([{ a: 2, b: 40 }]);
  });

  it("an in-process tool is judged by the permission policy: without a rule it is denied", async () => {
    let ran = false;
    const server = createSdkMcpServer({
      name: "danger",
      tools: [
        tool("wipe", "Wipes", { type: "object", properties: {} }, async () => {
          ran = true;
          return { content: [{ type: "text", text: "wiped" }] };
        }),
      ],
    });
    const client = scriptedClient([{ toolCalls: [{ name: "mcp__danger__wipe", args: {} }] }, { text: "x" }]);
    await run(client, { mcpServers: { danger: server } });
    expect(ran).toBe(false);
    expect(results(client, 1)).toMatch(/Permission denied/);
  });

  it("accepts an McpServer instance from the MCP SDK (connected through its in-memory transport)", async () => {
    const server = new McpServer({ name: "notes", version: "1.0.0" });
    server.registerTool(
      "lookup",
      { description: "Looks a note up", inputSchema: { key: z.string() } },
      async ({ key }) => ({ content: [{ type: "text", text: `note for ${key}: buy milk` }] }),
    );
    const client = scriptedClient([
      { toolCalls: [{ name: "mcp__notes__lookup", args: { key: "today" } }] },
      { text: "x" },
    ]);
    await run(client, {
      mcpServers: { notes: { type: "sdk", name: "notes", instance: server } },
      permissionMode: "bypassPermissions",
    });
    expect(results(client, 1)).toContain("note for today: buy milk");
  });

  it("a stdio server config starts the command and offers its tools", async () => {
    const script = join(root, "echo-server.mjs");
    const sdk = dirname(fileURLToPath(import.meta.resolve("@modelcontextprotocol/sdk/server/mcp.js")));
    await writeFile(
      script,
      `import { McpServer } from ${JSON.stringify(join(sdk, "mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(join(sdk, "stdio.js"))};
const server = new McpServer({ name: "echo", version: "1.0.0" });
server.registerTool("echo", { description: "Echoes", inputSchema: {} }, async () => ({ content: [{ type: "text", text: "echo from a child process" }] }));
await server.connect(new StdioServerTransport());
`,
    );
    const client = scriptedClient([{ toolCalls: [{ name: "mcp__echo__echo", args: {} }] }, { text: "x" }]);
    const messages = await run(client, {
      mcpServers: { echo: { command: process.execPath, args: [script] } },
      permissionMode: "bypassPermissions",
    });
    expect(messages[0]).toMatchObject({
      type: "system",
      subtype: "init",
      mcp_servers: [{ name: "echo", status: "connected" }],
    });
    expect(results(client, 1)).toContain("echo from a child process");
  });

  it("a tool with a schema that is neither zod nor an object JSON Schema is refused by name", async () => {
    const server = createSdkMcpServer({
      name: "bad",
      tools: [tool("t", "T", { type: "string" }, async () => ({ content: [] }))],
    });
    const error = await run(scriptedClient([{ text: "x" }]), { mcpServers: { bad: server } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(QueryOptionError);
    expect((error as Error).message).toContain('the tool "t" of "bad"');
  });
});
