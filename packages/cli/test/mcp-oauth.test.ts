import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript test server without type declarations
import { startOAuthMcpServer } from "../../agent/test/support/mcp/oauth-server.mjs";
import { runMcpCommand } from "../src/mcp/command.js";
import { runtimeFixture } from "./support/runtime-fixture.js";

let server: { url: string; counts: { calls: number }; stop(): Promise<void> };

beforeAll(async () => {
  server = await startOAuthMcpServer();
});

afterAll(async () => {
  await server?.stop();
});

describe("attractor mcp login and OAuth servers in a run", () => {
  const fixture = runtimeFixture();

  it("a server needing a login is reported with the command; after `mcp login` its tools work", async () => {
    const servers = { remote: { type: "http" as const, url: server.url } };
    const before = await fixture.start({ mcp: { servers, startupWaitMs: 30_000 } });
    await before.runtime.mcp?.ready();
    expect(before.runtime.mcp?.servers()[0]?.status).toBe("failed");
    expect(before.runtime.mcp?.servers()[0]?.error).toContain("attractor mcp login remote");

    // The user settings name the server; `login` prints the address, the "browser" follows it.
    const home = join(fixture.root, "attractor");
    const { writeFile, mkdir } = await import("node:fs/promises");
    await mkdir(home, { recursive: true });
    await writeFile(join(home, "settings.json"), JSON.stringify({ mcpServers: servers }));
    let out = "";
    const visits: Promise<unknown>[] = [];
    const code = await runMcpCommand(["login", "remote", "--no-browser"], {
      stdout: {
        write: (text: string) => {
          out += text;
          const url = /https?:\/\/\S+\/authorize\S*/.exec(text)?.[0];
          if (url) visits.push(fetch(url, { redirect: "follow" }));
          return true;
        },
      },
      stderr: { write: (text: string) => (out += text) },
      env: { ATTRACTOR_HOME: home, HOME: join(fixture.root, "user") },
      projectDir: () => fixture.project,
    });
    await Promise.all(visits);
    expect(out).toContain('To log in to MCP server "remote", open this address in a browser:');
    expect(code).toBe(0);
    expect(out).toContain('Logged in to MCP server "remote"');
    const authDir = join(home, "mcp", "auth");
    const [file] = readdirSync(authDir);
    expect(statSync(join(authDir, file as string)).mode & 0o777).toBe(0o600);

    const { runtime } = await fixture.start({
      headless: true,
      allowedTools: ["mcp__remote"],
      mcp: { servers, startupWaitMs: 30_000 },
    });
    fixture.model.script([{ calls: [{ name: "mcp__remote__whoami", args: {} }] }, { text: "done" }]);
    await runtime.submit("who am i");
    expect(fixture.model.seen().at(-1)?.toolResults.at(-1)).toMatch(/^client \S+/);

    // logout forgets the login: the file is gone.
    let said = "";
    const io = {
      stdout: { write: (t: string) => (said += t) },
      stderr: { write: (t: string) => (said += t) },
      env: { ATTRACTOR_HOME: home, HOME: join(fixture.root, "user") },
      projectDir: () => fixture.project,
    };
    expect(await runMcpCommand(["logout", "remote"], io)).toBe(0);
    expect(said).toContain('Logged out of MCP server "remote"');
    expect(readdirSync(authDir)).toEqual([]);
  }, 60_000);

  it("refuses to log in to a stdio server or one that is not configured", async () => {
    const home = join(fixture.root, "attractor");
    const { writeFile, mkdir } = await import("node:fs/promises");
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, "settings.json"),
      JSON.stringify({ mcpServers: { local: { command: "node" } } }),
    );
    const login = async (name: string) => {
      let err = "";
      const code = await runMcpCommand(["login", name], {
        stdout: { write: () => true },
        stderr: { write: (t: string) => (err += t) },
        env: { ATTRACTOR_HOME: home, HOME: join(fixture.root, "user") },
        projectDir: () => fixture.project,
      });
      return { code, err };
    };
    expect(await login("local")).toEqual({
      code: 2,
      err: 'attractor mcp: MCP server "local" runs as a command (stdio): it has no login.\n',
    });
    const missing = await login("elsewhere");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('No MCP server named "elsewhere"');
  });
});
