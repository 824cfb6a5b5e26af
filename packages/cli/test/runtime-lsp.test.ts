import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { summarizeCall } from "@attractor/runtime";
import { mergeSettings, parseSettings, SettingsError } from "@attractor/runtime/config";
import { createPermissionPolicy } from "@attractor/runtime/permissions";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCliProcess } from "../src/testing/index.js";
import { summarizeToolCall } from "../src/tui/transcript/tool-summary.js";
import { runtimeFixture } from "./support/runtime-fixture.js";

const fx = runtimeFixture();
// Where the test language servers are installed; the runtime finds them on PATH.
const serversBin = resolve(dirname(fileURLToPath(import.meta.url)), "../../../node_modules/.bin");
// node itself too: the servers' programs start with `#!/usr/bin/env node`.
const serversPath = `${serversBin}:${dirname(process.execPath)}:/usr/bin:/bin`;
const withServers = () => ({ env: { ...envOf(), PATH: serversPath } });
const envOf = () => ({ HOME: join(fx.root, "user"), ...fx.model.env() });

describe("code intelligence in the CLI", () => {
  it("offers the language-server tools with their guidance, and answers through the server", async () => {
    fx.model.script([
      { calls: [{ name: "find_definition", args: { path: "test.js", symbolName: "add", line: 2 } }] },
      { text: "Found it." },
    ]);
    const { runtime } = await fx.start(withServers());
    await runtime.submit("Where is add defined?");
    const [first, second] = fx.model.seen();
    expect(first?.tools).toEqual(expect.arrayContaining(["find_definition", "get_diagnostics"]));
    expect(JSON.stringify(first?.body.system)).toContain("Code navigation strategy");
    expect(second?.toolResults[0]).toContain("Definition of `add` at test.js:2:13:");
    expect(second?.toolResults[0]).toContain("src/math.js:1:10\n→ 1: function add(a, b) {");
  });

  it("works in the bundled command, which loads the protocol code on demand", async () => {
    fx.model.script([
      { calls: [{ name: "find_definition", args: { path: "test.js", symbolName: "add", line: 2 } }] },
      { text: "Found it." },
    ]);
    const result = await runCliProcess(["-p", "Where is add defined?"], {
      cwd: fx.project,
      env: cleanEnv(fx.root, { ...fx.model.env(), PATH: serversPath }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Found it.\n");
    expect(fx.model.seen()[1]?.toolResults[0]).toContain("src/math.js:1:10\n→ 1: function add(a, b) {");
  });

  it("leaves them out when settings turn language servers off", async () => {
    await mkdir(join(fx.project, ".attractor"), { recursive: true });
    await writeFile(
      join(fx.project, ".attractor", "settings.json"),
      JSON.stringify({ lsp: { enabled: false } }),
    );
    fx.model.script([{ text: "Hello." }]);
    const { runtime } = await fx.start(withServers());
    await runtime.submit("Hi");
    const [first] = fx.model.seen();
    expect(first?.tools).not.toContain("find_definition");
    expect(JSON.stringify(first?.body.system)).not.toContain("Code navigation strategy");
  });

  it("titles code-intelligence calls by what they do", () => {
    const call = (toolName: string, args: Record<string, unknown>) =>
      summarizeToolCall({ callId: "c", toolName, arguments: args, output: "" });
    expect(call("find_references", { path: "src/a.ts", symbolName: "run" })).toMatchObject({
      label: "Analyzing code",
      target: "src/a.ts run",
    });
    expect(call("find_symbol", { query: "Session" })).toMatchObject({
      label: "Searching codebase",
      target: "Session",
    });
    expect(call("get_document_symbols", { path: "src/a.ts" }).label).toBe("Inspecting file structure");
    // Headless progress lines and permission prompts name the symbol too.
    expect(summarizeCall("find_definition", { path: "src/a.ts", symbolName: "run" })).toBe(
      "find_definition src/a.ts run",
    );
    expect(summarizeCall("find_symbol", { query: "Session" })).toBe("find_symbol Session");
  });

  it("reads lsp settings: servers checked, and merged by id across the user's and the project's files", async () => {
    const user = await parseSettings(
      JSON.stringify({ lsp: { servers: { go: { command: "gopls", extensions: [".go"] } } } }),
      "user.json",
    );
    const project = await parseSettings(
      JSON.stringify({
        lsp: {
          diagnosticsWaitMs: 500,
          servers: { rust: { command: "rust-analyzer", extensions: [".rs"], rootMarkers: ["Cargo.toml"] } },
        },
      }),
      "project.json",
    );
    expect(mergeSettings([user, project]).lsp).toEqual({
      diagnosticsWaitMs: 500,
      servers: {
        go: { command: "gopls", extensions: [".go"] },
        rust: { command: "rust-analyzer", extensions: [".rs"], rootMarkers: ["Cargo.toml"] },
      },
    });
    const bad = parseSettings(
      JSON.stringify({ lsp: { servers: { go: { command: "gopls", extensions: ["go"] } } } }),
      "bad.json",
    );
    await expect(bad).rejects.toBeInstanceOf(SettingsError);
    await expect(bad).rejects.toThrow("bad.json: at /lsp/servers/go/extensions/0:");
  });

  it("checks code-intelligence calls like reads: inside the project allowed, outside asked", async () => {
    const policy = createPermissionPolicy({ mode: "normal", projectRoot: fx.project });
    const call = async (args: Record<string, unknown>) =>
      (await policy.evaluate({ callId: "c", toolName: "find_references", arguments: args })).behavior;
    expect(await call({ path: "src/math.js", symbolName: "add" })).toBe("allow");
    expect(await call({ path: "/etc/profile.d/x.sh", line: 1 })).toBe("ask");
    expect(
      (await policy.evaluate({ callId: "d", toolName: "find_symbol", arguments: { query: "add" } })).behavior,
    ).toBe("allow");
  });
});
