import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeBubblewrap, SandboxedExecutionEnvironment } from "../src/environment/index.js";
import { BackgroundProcesses } from "../src/tools/processes/index.js";
import { tempDir } from "./support/fixtures.js";

const status = await probeBubblewrap();

describe.skipIf(!status.available)("the sandbox's one network namespace per environment", () => {
  let dir: string;
  let remove: () => Promise<void>;
  let env: SandboxedExecutionEnvironment;
  let hostServer: Server;
  let hostPort: number;
  const processes = new BackgroundProcesses();

  beforeAll(async () => {
    ({ dir, remove } = await tempDir());
    env = new SandboxedExecutionEnvironment({ workingDirectory: dir, sandbox: {} });
    hostServer = createServer((_q, s) => s.end("host"));
    await new Promise<void>((resolve) => hostServer.listen(0, "127.0.0.1", resolve));
    hostPort = (hostServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await processes.stopAll();
    await env.cleanup();
    await new Promise<void>((resolve) => hostServer.close(() => resolve()));
    await remove();
  });

  it("lets a later command reach a server started in the background, over loopback only", async () => {
    const started = await processes.start(
      env,
      "python3 -u -c \"import http.server as h; s=h.HTTPServer(('127.0.0.1', 0), h.SimpleHTTPRequestHandler); print('port', s.server_port); s.serve_forever()\"",
    );
    let port = "";
    for (let i = 0; i < 50 && port === ""; i++) {
      const read = await processes.read(started.id, { waitMs: 200 });
      port = /port (\d+)/.exec(read.output)?.[1] ?? "";
    }
    expect(port).toMatch(/^\d+$/);
    const reached = await env.execCommand(`curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/`);
    expect(reached.stdout).toBe("200");
    // The namespace has loopback and nothing else: the host's own servers stay out of reach…
    const host = await env.execCommand(`curl -s -m 2 http://127.0.0.1:${hostPort}/ || echo unreachable`);
    expect(host.stdout).toContain("unreachable");
    const links = await env.execCommand("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect(links.stdout.trim()).toBe("lo");
    // …and the sandboxed server is not reachable from the host.
    expect(() =>
      execFileSync("curl", ["-s", "-m", "2", `http://127.0.0.1:${port}/`], { stdio: "pipe" }),
    ).toThrow();
  });
});
