// A stdio MCP server started through the sandboxed environment runs inside bubblewrap: it can
// write in the project, not beside it, and the manager talks to it as to any stdio server.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SandboxedExecutionEnvironment } from "../src/environment/sandboxed.js";
import { McpManager } from "../src/mcp/manager.js";
import type { ToolOutput } from "../src/types/tool.js";
import { tempDir, testProfile } from "./support/fixtures.js";
import { FILESYSTEM } from "./support/mcp/servers.js";

let dir: string;
let project: string;
let outside: string;
let removeDir: () => Promise<void>;
let sandbox: SandboxedExecutionEnvironment;
let manager: McpManager;
let available = false;

beforeAll(async () => {
  ({ dir, remove: removeDir } = await tempDir());
  project = path.join(dir, "project");
  // Beside the project and not under /tmp (the sandbox gives /tmp a private, empty directory).
  outside = await mkdtemp("/var/tmp/attractor-mcp-outside-");
  await mkdir(project);
  sandbox = new SandboxedExecutionEnvironment({
    workingDirectory: project,
    sandbox: { mode: "workspace-write", required: true },
  });
  available = (await sandbox.availability()).active;
  manager = new McpManager(
    { fs: { command: process.execPath, args: [FILESYSTEM, project, outside] } },
    {
      cwd: project,
      startupWaitMs: 60_000,
      startProcess: (command, args, options) => sandbox.startSandboxedProcess(command, args, options),
    },
  );
});

afterAll(async () => {
  await manager?.close();
  await sandbox?.cleanup();
  await removeDir();
  await rm(outside, { recursive: true, force: true });
});

async function call(tool: string, args: Record<string, unknown>): Promise<ToolOutput> {
  const profile = testProfile([]);
  const detach = manager.attach(profile.toolRegistry);
  try {
    const registered = profile.toolRegistry.get(`mcp__fs__${tool}`);
    if (!registered) throw new Error(`no tool ${tool}: ${JSON.stringify(manager.servers())}`);
    const result = await registered.executor(args, sandbox, {});
    return typeof result === "string" ? { output: result } : result;
  } finally {
    detach();
  }
}

describe("stdio MCP servers in the sandbox", () => {
  it("start inside bubblewrap: the project is writable, a directory beside it is not", async (context) => {
    if (!available) context.skip();
    await manager.waitForStartup();
    expect(manager.servers()[0]?.status).toBe("connected");

    const inside = await call("write_file", {
      path: path.join(project, "made.txt"),
      content: "in the sandbox",
    });
    expect(inside.isError ?? false).toBe(false);
    expect(readFileSync(path.join(project, "made.txt"), "utf8")).toBe("in the sandbox");

    // The server itself allows `outside`; the sandbox does not let it write there.
    const blocked = await call("write_file", { path: path.join(outside, "escape.txt"), content: "no" });
    expect(blocked.isError).toBe(true);
    expect(blocked.output).toMatch(/read-only file system|EROFS|EACCES|permission denied/i);
    expect(existsSync(path.join(outside, "escape.txt"))).toBe(false);
  }, 90_000);

  it("refuses to start a server when the required sandbox cannot run", async () => {
    const broken = new SandboxedExecutionEnvironment({
      workingDirectory: project,
      sandbox: { mode: "workspace-write", required: true, searchPath: path.join(dir, "no-bin") },
    });
    const m = new McpManager(
      { fs: { command: process.execPath, args: [FILESYSTEM, project] } },
      { startupWaitMs: 60_000, startProcess: (c, a, o) => broken.startSandboxedProcess(c, a, o) },
    );
    try {
      await m.waitForStartup();
      const s = m.servers()[0];
      expect(s?.status).toBe("failed");
      expect(s?.error).toContain("The sandbox cannot run here");
    } finally {
      await m.close();
      await broken.cleanup();
    }
  }, 60_000);
});
