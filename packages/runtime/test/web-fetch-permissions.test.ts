import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { createWebFetchTool, LocalExecutionEnvironment, type ToolOutput } from "@attractor/agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPermissionPolicy,
  type PermissionMode,
  type PermissionPolicyOptions,
  type PermissionRequest,
} from "../src/permissions/index.js";

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/plain" }).end("local page"),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let n = 0;
const fetchCall = (url: string) => ({ callId: `w${n++}`, toolName: "web_fetch", arguments: { url } });
const policy = (mode: PermissionMode, extra: Partial<PermissionPolicyOptions> = {}) =>
  createPermissionPolicy({ mode, projectRoot: tmpdir(), ...extra });

describe("web_fetch domain rules", () => {
  it("deny and ask rules name domains, in our syntax and Claude Code's; other fetches are allowed as reads", async () => {
    const p = policy("normal", {
      rules: {
        deny: ["WebFetch(domain:evil.example)"],
        ask: ["web_fetch(domain:*.corp.example)"],
      },
    });
    const denied = await p.evaluate(fetchCall("https://evil.example/page"));
    expect(denied.behavior).toBe("deny");
    expect(denied.behavior === "deny" && denied.message).toContain("WebFetch(domain:evil.example)");
    expect((await p.evaluate(fetchCall("https://wiki.corp.example/x"))).behavior).toBe("ask");
    // The fully qualified form of a host (a final dot) is the same host.
    expect((await p.evaluate(fetchCall("https://evil.example./page"))).behavior).toBe("deny");
    expect((await p.evaluate(fetchCall("https://wiki.corp.example./x"))).behavior).toBe("ask");
    expect((await p.evaluate(fetchCall("https://docs.python.org/3/"))).behavior).toBe("allow");
    // A subdomain of a denied domain is another host; the wildcard form covers subdomains.
    expect((await p.evaluate(fetchCall("https://www.evil.example/"))).behavior).toBe("allow");
    // Plan mode keeps a read-only tool.
    expect((await policy("plan").evaluate(fetchCall("https://docs.python.org/"))).behavior).toBe("allow");
    // A bare rule covers every domain.
    const all = policy("yolo", { rules: { deny: ["WebFetch"] } });
    expect((await all.evaluate(fetchCall("https://docs.python.org/"))).behavior).toBe("deny");
  });
});

describe("web_fetch of an address on this machine, through the policy as the runtime wires it", () => {
  const env = new LocalExecutionEnvironment({ workingDirectory: tmpdir() });
  const toolFor = (p: ReturnType<typeof policy>) =>
    createWebFetchTool({
      // A name that resolves to loopback: the check happens after resolution.
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
      allowNonPublic: async (target) =>
        (
          await p.check({
            callId: "",
            toolName: "web_fetch",
            arguments: { url: target.url, nonPublicAddress: target.address },
          })
        ).behavior === "allow",
    });
  const run = async (p: ReturnType<typeof policy>) =>
    (await toolFor(p).executor({ url: `http://dev.internal.test:${port}/` }, env, {
      toolCallId: "t",
    })) as ToolOutput;

  it("asks in normal mode and fetches only when the user allows", async () => {
    const asked: PermissionRequest[] = [];
    const yes = policy("normal", {
      ask: async (r) => {
        asked.push(r);
        return "allow_once";
      },
    });
    expect((await run(yes)).output).toContain("local page");
    expect(asked[0]?.reason).toContain("dev.internal.test resolves to 127.0.0.1");
    const no = policy("auto-edit", { ask: async () => "deny" });
    const refused = await run(no);
    expect(refused.errorCode).toBe("non_public_address");
    expect(refused.output).not.toContain("local page");
  });

  it("is refused headless, even with an allow rule for the domain, and runs in yolo mode", async () => {
    const headless = policy("auto-edit", {
      headless: true,
      rules: { allow: ["WebFetch(domain:dev.internal.test)"] },
    });
    expect((await run(headless)).errorCode).toBe("non_public_address");
    expect((await run(policy("yolo", { headless: true }))).output).toContain("local page");
  });
});
