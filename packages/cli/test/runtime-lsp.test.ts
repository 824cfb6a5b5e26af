import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { summarizeToolCall } from "../src/tui/transcript/tool-summary.js";
import { runtimeFixture } from "./support/runtime-fixture.js";

const fx = runtimeFixture();
// Where the test language servers are installed; the runtime finds them on PATH.
const serversBin = resolve(dirname(fileURLToPath(import.meta.url)), "../../../node_modules/.bin");
const withServers = () => ({ env: { ...envOf(), PATH: `${serversBin}:/usr/bin:/bin` } });
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
  });
});
