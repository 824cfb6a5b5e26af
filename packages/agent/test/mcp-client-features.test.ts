import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { Request } from "@attractor/llm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type McpElicitationRequest,
  McpRequestRefused,
  type McpSamplingRequest,
  samplingModelRequest,
} from "../src/mcp/client-requests.js";
import { McpManager } from "../src/mcp/manager.js";
import { fileToolCache } from "../src/mcp/tool-cache.js";
import type { McpServerConfig } from "../src/mcp/types.js";
import { Session } from "../src/session/session.js";
import { nodeEnvironment, scriptedClient } from "../src/testing/index.js";
import type { ToolResultRecord } from "../src/types/turn.js";
import { tempDir, testProfile } from "./support/fixtures.js";
import { EVERYTHING, SCRIPTED } from "./support/mcp/servers.js";

let dir: string;
let removeDir: () => Promise<void>;
const managers: McpManager[] = [];

const everything: McpServerConfig = { command: process.execPath, args: [EVERYTHING, "stdio"] };

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
});

afterAll(async () => {
  await Promise.all(managers.map((m) => m.close()));
  await removeDir();
});

function manager(...args: ConstructorParameters<typeof McpManager>): McpManager {
  const m = new McpManager(...args);
  managers.push(m);
  return m;
}

/** Runs one scripted call of `tool` through a session the manager serves; returns its result. */
async function callThroughSession(
  m: McpManager,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ result: ToolResultRecord | undefined; requests: Request[] }> {
  const client = scriptedClient([{ toolCalls: [{ id: "c1", name: tool, args }] }, { text: "done" }]);
  const profile = testProfile([]);
  const session = new Session({
    profile,
    environment: nodeEnvironment(dir),
    client,
    toolsReady: m.waitForStartup,
    toolInstructions: m.instructions,
  });
  const detach = m.attach(profile.toolRegistry);
  await session.submit("go");
  detach();
  const result = session.history.flatMap((t) => (t.kind === "tool_results" ? [...t.results] : []))[0];
  await session.close();
  return { result, requests: client.requests };
}

const systemText = (r: Request | undefined) =>
  (r?.messages[0]?.content ?? []).map((p) => (p.kind === "text" ? p.text : "")).join("");

/** Waits until a server lists a tool (servers may add tools after initialize). */
async function toolListed(m: McpManager, server: string, tool: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const s = m.servers().find((x) => x.name === server);
    if (s?.tools.some((t) => t.serverToolName === tool)) return;
    if (s?.status === "failed") throw new Error(`${server} failed: ${s.error}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${server} never listed ${tool}`);
}

/** The cache's entry files once one is written (entries are written in the background). */
async function cacheFiles(cacheDir: string): Promise<string[]> {
  const files = () => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith(".json")) : []);
  for (let i = 0; i < 400 && files().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  return files();
}

describe("MCP tool-list cache", () => {
  it("offers a known server's tools before it starts, and starts it when one is called", async () => {
    const cacheDir = path.join(dir, "cache");
    const first = manager({ everything }, { toolCache: fileToolCache(cacheDir), startupWaitMs: 60_000 });
    await first.waitForStartup();
    expect(first.servers()[0]?.status).toBe("connected");
    // The entry is written in the background once the server connected.
    const [file] = await cacheFiles(cacheDir);
    expect(file).toMatch(/\.json$/);
    expect(statSync(path.join(cacheDir, file as string)).mode & 0o777).toBe(0o600);
    const listed = first.servers()[0]?.tools.map((t) => t.name) ?? [];
    await first.close();

    const second = manager({ everything }, { toolCache: fileToolCache(cacheDir), startupWaitMs: 60_000 });
    expect(await second.prepare()).toBe(true);
    const before = second.servers()[0];
    expect(before?.status).toBe("pending");
    expect(before?.fromCache).toBe(true);
    expect(before?.tools.map((t) => t.name)).toEqual(listed);
    // The first request does not wait for a server the cache knows, and nothing was started.
    await second.waitForStartup();
    expect(second.servers()[0]?.status).toBe("pending");

    const { result, requests } = await callThroughSession(second, "mcp__everything__echo", {
      message: "from the cache",
    });
    expect(requests[0]?.tools?.map((t) => t.name)).toContain("mcp__everything__echo");
    expect(result?.isError).toBe(false);
    expect(String(result?.content)).toContain("from the cache");
    expect(second.servers()[0]?.status).toBe("connected");
    expect(second.servers()[0]?.fromCache).toBe(false);
  }, 90_000);

  it("with no wait and no cache, the first request does not wait but the servers start", async () => {
    const m = manager(
      { everything },
      { toolCache: fileToolCache(path.join(dir, "cache-none")), startupWaitMs: 0 },
    );
    await m.waitForStartup();
    expect(m.servers()[0]?.status).not.toBe("pending");
    for (let i = 0; i < 400 && m.servers()[0]?.status !== "connected"; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(m.servers()[0]?.status).toBe("connected");
  }, 30_000);

  it("drops remembered tools of a server that no longer starts", async () => {
    const cacheDir = path.join(dir, "cache-broken");
    const config: McpServerConfig = { command: process.execPath, args: [SCRIPTED, "normal"] };
    const first = manager(
      { scripted: config },
      { toolCache: fileToolCache(cacheDir), startupWaitMs: 60_000 },
    );
    await first.waitForStartup();
    await cacheFiles(cacheDir);
    await first.close();
    // Same key, but the program it names is gone: cached under the same command line.
    const cache = fileToolCache(cacheDir);
    const [file] = await cacheFiles(cacheDir);
    const key = (file as string).replace(/\.json$/, "");
    const entry = JSON.parse(readFileSync(path.join(cacheDir, file as string), "utf8"));
    const broken: McpServerConfig = { command: path.join(dir, "no-such-server"), args: [] };
    const { serverCacheKey } = await import("../src/mcp/tool-cache.js");
    await cache.set(serverCacheKey(broken, undefined), entry);
    expect(key).not.toBe(serverCacheKey(broken, undefined));

    const second = manager({ scripted: broken }, { toolCache: cache });
    expect(await second.prepare()).toBe(true);
    expect(second.servers()[0]?.tools.length).toBeGreaterThan(0);
    const { result } = await callThroughSession(second, "mcp__scripted__pid");
    expect(result?.isError).toBe(true);
    expect(String(result?.content)).toContain("failed to start");
    expect(second.servers()[0]?.status).toBe("failed");
    expect(second.servers()[0]?.tools).toEqual([]);
  }, 60_000);
});

describe("MCP server instructions", () => {
  it("puts each server's instructions into the system prompt, cut to a bounded size", async () => {
    const m = manager(
      {
        everything,
        long: {
          command: process.execPath,
          args: [SCRIPTED, "normal"],
          env: { INSTRUCTIONS_CHARS: "10000" },
        },
      },
      { startupWaitMs: 60_000 },
    );
    const { requests } = await callThroughSession(m, "mcp__long__pid");
    const prompt = systemText(requests[0]);
    expect(prompt).toContain("# MCP server instructions");
    expect(prompt).toContain("## everything");
    expect(prompt).toContain("get-roots-list");
    expect(prompt).toContain("## long\nUse pid to learn the process id.");
    expect(prompt).toMatch(/more characters cut\]/);
    expect(prompt).not.toContain("x".repeat(2100));
  }, 60_000);
});

describe("MCP client capabilities against the everything server", () => {
  it("offers the project as roots and tells the server when they change", async () => {
    const other = path.join(dir, "other root");
    await mkdir(other);
    const m = manager({ everything }, { roots: [dir], startupWaitMs: 60_000 });
    await m.waitForStartup();
    await toolListed(m, "everything", "get-roots-list");
    const first = await callThroughSession(m, "mcp__everything__get-roots-list");
    expect(String(first.result?.content)).toContain(pathToFileURL(dir).href);
    await m.setRoots([other]);
    // The server asks for the roots again after the notification; poll its answer.
    let text = "";
    for (let i = 0; i < 100 && !text.includes(pathToFileURL(other).href); i++) {
      text = String((await callThroughSession(m, "mcp__everything__get-roots-list")).result?.content);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(text).toContain(pathToFileURL(other).href);
  }, 60_000);

  it("answers sampling through the host's handler, and passes a refusal on to the server", async () => {
    const seen: McpSamplingRequest[] = [];
    let refuse = false;
    const m = manager(
      { everything },
      {
        startupWaitMs: 60_000,
        onSampling: async (request) => {
          seen.push(request);
          if (refuse) throw new McpRequestRefused("The user declined the sampling request.");
          return { text: "a sampled answer", model: "host-model", stopReason: "endTurn" };
        },
      },
    );
    await m.waitForStartup();
    await toolListed(m, "everything", "trigger-sampling-request");
    const ok = await callThroughSession(m, "mcp__everything__trigger-sampling-request", {
      prompt: "say something",
      maxTokens: 50,
    });
    expect(ok.result?.isError).toBe(false);
    expect(String(ok.result?.content)).toContain("a sampled answer");
    expect(String(ok.result?.content)).toContain("host-model");
    expect(seen[0]?.server).toBe("everything");
    expect(seen[0]?.maxTokens).toBe(50);
    expect(JSON.stringify(seen[0]?.messages)).toContain("say something");

    refuse = true;
    const refused = await callThroughSession(m, "mcp__everything__trigger-sampling-request", {
      prompt: "again",
    });
    expect(refused.result?.isError).toBe(true);
    expect(String(refused.result?.content)).toContain("declined the sampling request");
  }, 60_000);

  it("asks the host for a form's values and sends the answer or the refusal", async () => {
    const asked: McpElicitationRequest[] = [];
    let accept = true;
    const m = manager(
      { everything },
      {
        startupWaitMs: 60_000,
        onElicitation: async (request) => {
          asked.push(request);
          if (!accept) return { action: "decline" };
          return {
            action: "accept",
            content: { name: "Ada Lovelace", check: true, integer: 7, untitledSingleSelectEnum: "Joey" },
          };
        },
      },
    );
    await m.waitForStartup();
    await toolListed(m, "everything", "trigger-elicitation-request");
    const accepted = await callThroughSession(m, "mcp__everything__trigger-elicitation-request");
    expect(String(accepted.result?.content)).toContain("Ada Lovelace");
    const fields = asked[0]?.fields ?? [];
    expect(fields.find((f) => f.name === "check")?.kind).toBe("boolean");
    expect(fields.find((f) => f.name === "integer")).toMatchObject({
      kind: "number",
      integer: true,
      minimum: 1,
    });
    expect(fields.find((f) => f.name === "titledSingleSelectEnum")).toMatchObject({
      kind: "choice",
      multiple: false,
      options: expect.arrayContaining([{ value: "hero-1", label: "Superman" }]),
    });
    accept = false;
    const declined = await callThroughSession(m, "mcp__everything__trigger-elicitation-request");
    expect(String(declined.result?.content).toLowerCase()).toContain("decline");
  }, 60_000);

  it("does not declare sampling, elicitation or roots without a handler", async () => {
    const m = manager({ everything }, { startupWaitMs: 60_000 });
    await m.waitForStartup();
    // The everything server registers these tools only for clients that declared the capability.
    await toolListed(m, "everything", "echo");
    await new Promise((r) => setTimeout(r, 300));
    const names = m.servers()[0]?.tools.map((t) => t.serverToolName) ?? [];
    expect(names).not.toContain("trigger-sampling-request");
    expect(names).not.toContain("trigger-elicitation-request");
    expect(names).not.toContain("get-roots-list");
  }, 60_000);

  it("maps a sampling request to a model request", () => {
    const request = samplingModelRequest(
      {
        server: "s",
        systemPrompt: "be brief",
        maxTokens: 20,
        temperature: 0.5,
        messages: [
          { role: "user", content: { type: "text", text: "hello" } },
          { role: "assistant", content: [{ type: "text", text: "hi" }] },
          { role: "user", content: { type: "image", data: "aGk=", mimeType: "image/png" } },
        ],
      },
      "m1",
    );
    expect(request.model).toBe("m1");
    expect(request.maxTokens).toBe(20);
    expect(request.messages.map((x) => x.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(request.messages[3]?.content[0]?.kind).toBe("image");
  });
});
